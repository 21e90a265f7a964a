import type { PoolClient } from 'pg';
// pg's own conversion of a parameter to the text it sends (arrays to array literals, objects to JSON, dates to ISO),
// and its row parser (the client's type parsers).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { prepareValue } = require('pg/lib/utils') as { prepareValue: (v: unknown) => string | Buffer | null };
// eslint-disable-next-line @typescript-eslint/no-require-imports
const Result = require('pg/lib/result') as new (rowMode: undefined, types: unknown) => PgResult;

interface PgResult {
  rows: unknown[];
  addFields(fields: unknown[]): void;
  parseRow(fields: unknown[]): unknown;
  addRow(row: unknown): void;
}

/** The parts of pg's connection a batch writes to (pg/lib/connection.js). */
interface PgConnection {
  stream: { cork?(): void; uncork?(): void };
  parse(msg: { name: string; text: string; types: number[] }): void;
  bind(msg: { statement: string; values: Array<string | Buffer | null> }): void;
  describe(msg: { type: 'P'; name: string }): void;
  execute(msg: { portal: string; rows: number }): void;
  sync(): void;
  sendCopyFail(message: string): void;
}

/**
 * The server's error for a statement of a batch, with which one (`batchStep`, from 0) and the rows of the statements
 * before it, which ran: the caller may keep what they did (a committed transaction, a read).
 */
export type BatchStepError = Error & { batchStep: number; completedRows: unknown[][] };

export const isBatchStepError = (e: unknown): e is BatchStepError => e instanceof Error && typeof (e as Partial<BatchStepError>).batchStep === 'number';

/** One statement of a batch: `name` '' for the unnamed statement; `parse` false when `name` is prepared on the connection. */
export interface BatchStatement { name: string; text: string; parse: boolean; values: unknown[] }

/**
 * Sends `statements` to Postgres as one extended-protocol batch, in one write: Parse (where asked), Bind, Describe and
 * Execute for each, then a single Sync. So the parameters travel as bound values, never inlined into SQL text, and a
 * statement that fails makes the server skip the rest up to the Sync. Resolves with each statement's rows, in order.
 *
 * It is a pg "submittable" (what pg-cursor is): the client hands it the connection when its turn comes and routes the
 * server's answers to its handle* methods. An error reply ends it at once (pg forgets it as the active query then), as
 * a BatchStepError.
 */
export function runBatch(client: PoolClient, statements: BatchStatement[]): Promise<unknown[][]> {
  // Converted before anything is written: a value pg cannot convert then fails the call, not half a batch.
  const values = statements.map((s) => s.values.map(prepareValue));
  return new Promise((resolve, reject) => {
    const results = statements.map(() => new Result(undefined, (client as unknown as { _types: unknown })._types));
    let current = 0;
    let failed: Error | undefined;
    let settled = false;
    const settle = (error: Error | undefined) => {
      if (settled) return;
      settled = true;
      if (error) reject(error);
      else resolve(results.map((r) => r.rows));
    };
    const batch = {
      submit(connection: PgConnection) {
        connection.stream.cork?.();
        try {
          statements.forEach((s, i) => {
            if (s.parse) connection.parse({ name: s.name, text: s.text, types: [] });
            connection.bind({ statement: s.name, values: values[i] });
            connection.describe({ type: 'P', name: '' });
            connection.execute({ portal: '', rows: 0 });
          });
          connection.sync();
        } finally {
          connection.stream.uncork?.();
        }
        return null;
      },
      handleRowDescription(msg: { fields: unknown[] }) {
        results[current].addFields(msg.fields);
      },
      handleDataRow(msg: { fields: unknown[] }) {
        if (failed) return;
        try {
          results[current].addRow(results[current].parseRow(msg.fields));
        } catch (e) {
          failed = e as Error; // reported once the server is done with the batch
        }
      },
      handleCommandComplete() {
        current++;
      },
      handleEmptyQuery() {
        current++;
      },
      handleError(error: Error) {
        settle(Object.assign(error, { batchStep: current, completedRows: results.slice(0, current).map((r) => r.rows) }));
      },
      // A step that is a COPY FROM STDIN has no data to take here: it fails, as pg's own queries make it fail.
      handleCopyInResponse(connection: PgConnection) {
        connection.sendCopyFail('a script step cannot copy from stdin');
      },
      handleCopyData() {},
      handleReadyForQuery() {
        settle(failed);
      },
    };
    void client.query(batch as never);
  });
}
