import { createServer } from 'node:net';
import { Client } from 'pg';
import { isUnreachableError } from '@sqlsweep/db';
import { retryWhileUnreachable, ServiceOutages, ServiceUnreachableError } from './service-outages';

/** A loopback port nothing listens on (the system picked it free a moment ago). */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** What pg really throws when nothing listens on the port. */
async function refusedConnection(): Promise<Error> {
  const port = await freePort();
  const client = new Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres` });
  return client.connect().then(() => { throw new Error('connected to a free port'); }, (e: Error) => e);
}

const sqlError = (code: string, message: string) => Object.assign(new Error(message), { code });

describe('isUnreachableError', () => {
  it('is true for a refused connection, a server shutting down or starting, and a connection cut under a query', async () => {
    expect(isUnreachableError(await refusedConnection())).toBe(true);
    expect(isUnreachableError(sqlError('57P01', 'terminating connection due to administrator command'))).toBe(true);
    expect(isUnreachableError(sqlError('57P03', 'the database system is starting up'))).toBe(true);
    expect(isUnreachableError(new Error('Connection terminated unexpectedly'))).toBe(true);
  });

  it('is false for errors a retry cannot cure', () => {
    expect(isUnreachableError(sqlError('42601', 'syntax error at or near "SELEC"'))).toBe(false);
    expect(isUnreachableError(sqlError('23505', 'duplicate key value violates unique constraint'))).toBe(false);
    expect(isUnreachableError(new Error('no run 123'))).toBe(false);
    expect(isUnreachableError('ECONNREFUSED')).toBe(false);
  });
});

describe('retryWhileUnreachable', () => {
  it('says once that the service is unreachable, once that it is back, and returns what the work returned', async () => {
    const lines: string[] = [];
    const outages = new ServiceOutages(60_000, (l) => lines.push(l));
    const refused = await refusedConnection();
    let calls = 0;
    const result = await retryWhileUnreachable(outages, 'postgres', async () => {
      if (++calls < 3) throw refused;
      return 'the run';
    });
    expect(result).toBe('the run');
    expect(lines).toEqual([
      'postgres unreachable (ECONNREFUSED): retrying for up to 60 s',
      expect.stringMatching(/^postgres reachable again after \d+\.\d s$/),
    ]);
    outages.dispose();
  });

  it('passes any other error through at once', async () => {
    const lines: string[] = [];
    const outages = new ServiceOutages(60_000, (l) => lines.push(l));
    await expect(retryWhileUnreachable(outages, 'postgres', () => Promise.reject(sqlError('42P01', 'relation "runs" does not exist')))).rejects.toThrow('relation "runs" does not exist');
    expect(lines).toEqual([]);
  });

  it('gives up after the limit, naming the service, how long and why', async () => {
    const outages = new ServiceOutages(1_000, () => undefined);
    const refused = await refusedConnection();
    const started = Date.now();
    const attempt = retryWhileUnreachable(outages, 'postgres', () => Promise.reject(refused));
    await expect(attempt).rejects.toThrow(new ServiceUnreachableError('postgres', 1_000, 'ECONNREFUSED'));
    await expect(outages.gaveUp).rejects.toThrow('postgres unreachable for 1 s (ECONNREFUSED): gave up waiting for it');
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
  });
});
