import { access, READ_ONLY_REFUSAL, refusal } from './bearer.guard';

describe('the read-only token', () => {
  const env = { SQLSWEEP_API_TOKEN: 'write-token-0123456789', SQLSWEEP_READ_TOKEN: 'read-token-0123456789', SQLSWEEP_OPEN_READS: false };

  it('reads but never changes state, and says why', () => {
    expect(refusal(env, 'GET', env.SQLSWEEP_READ_TOKEN)).toBeNull();
    expect(refusal(env, 'POST', env.SQLSWEEP_READ_TOKEN)).toBe(READ_ONLY_REFUSAL);
    expect(refusal(env, 'POST', env.SQLSWEEP_API_TOKEN)).toBeNull();
    expect(refusal(env, 'POST', 'something-else-0123456')).toBe('missing or wrong bearer token');
  });

  it('tells a client what its token may do', () => {
    expect(access(env, env.SQLSWEEP_API_TOKEN)).toEqual({ read: true, write: true, reason: null });
    expect(access(env, env.SQLSWEEP_READ_TOKEN)).toEqual({ read: true, write: false, reason: READ_ONLY_REFUSAL });
    expect(access(env, undefined)).toEqual({ read: false, write: false, reason: 'missing or wrong bearer token' });
    expect(access({ ...env, SQLSWEEP_OPEN_READS: true }, undefined)).toEqual({ read: true, write: false, reason: 'missing or wrong bearer token' });
  });

  it('does nothing when no read token is set', () => {
    expect(refusal({ ...env, SQLSWEEP_READ_TOKEN: undefined }, 'GET', undefined)).toBe('missing or wrong bearer token');
  });
});
