/** A problem in the benchmark sources; `file` is the offending source file, `item` the question index if any. */
export class MinibenchBuildError extends Error {
  constructor(
    readonly file: string,
    readonly detail: string,
    readonly item?: number,
    readonly line?: number,
  ) {
    super(
      `${file}${line !== undefined ? `:${line}` : ''}${item !== undefined ? ` item ${item}` : ''}: ${detail}`,
    );
    this.name = 'MinibenchBuildError';
  }
}
