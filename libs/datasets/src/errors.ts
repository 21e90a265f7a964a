/** A fatal problem with a dataset on disk; the message always names the file (and the item when there is one). */
export class DatasetError extends Error {
  constructor(
    readonly file: string,
    detail: string,
    readonly item?: string,
  ) {
    super(`${file}${item !== undefined ? ` (item ${item})` : ''}: ${detail}`);
    this.name = 'DatasetError';
  }
}
