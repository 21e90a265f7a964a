import { claimLifetime } from './claim-keeper';
import { isRefusedByStore } from './kept-responses';

describe('isRefusedByStore', () => {
  it('gives up only on errors about the data, retrying anything about the connection', () => {
    // As node-postgres reports them: errors from the server carry a severity, socket errors a syscall.
    const err = (code?: string) => Object.assign(new Error('x'), code ? { code, severity: 'ERROR' } : {});
    const socket = (code: string) => Object.assign(new Error('x'), { code, syscall: 'write' });
    expect(isRefusedByStore(err('23514'))).toBe(true); // check constraint
    expect(isRefusedByStore(err('42P01'))).toBe(true); // undefined table
    expect(isRefusedByStore(socket('ECONNREFUSED'))).toBe(false);
    expect(isRefusedByStore(socket('EPIPE'))).toBe(false);
    expect(isRefusedByStore(err('08006'))).toBe(false); // connection failure
    expect(isRefusedByStore(err('57P01'))).toBe(false); // admin shutdown
    expect(isRefusedByStore(err('57P03'))).toBe(false); // starting up
    expect(isRefusedByStore(err('53300'))).toBe(false); // too many connections
    expect(isRefusedByStore(err())).toBe(false); // Connection terminated unexpectedly
  });
});

describe('claimLifetime', () => {
  it('renews five times per TTL by default and refuses a renewal interval that is not shorter than the TTL', () => {
    expect(claimLifetime()).toEqual({ ttlMs: 10_000, renewEveryMs: 2_000 });
    expect(claimLifetime({ ttlMs: 2_000 })).toEqual({ ttlMs: 2_000, renewEveryMs: 400 });
    expect(() => claimLifetime({ ttlMs: 1_000, renewEveryMs: 1_000 })).toThrow(/renewEveryMs \(1000\) must be positive and below ttlMs \(1000\)/);
  });
});
