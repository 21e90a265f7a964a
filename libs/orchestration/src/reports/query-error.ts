/** A report asked for something the stored runs cannot answer (a variant not in the run, runs that do not pair). */
export class ReportQueryError extends Error {
  constructor(readonly field: string, readonly reason: string) {
    super(`${field}: ${reason}`);
    this.name = 'ReportQueryError';
  }
}
