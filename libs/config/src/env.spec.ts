import { appEnvSchemas, ConfigError, parseEnv } from './index';

describe('environment schemas', () => {
  it('applies defaults for a bare environment', () => {
    const env = parseEnv(appEnvSchemas.worker, {});
    expect(env.SQLSWEEP_ROLES).toEqual(['llm', 'sql', 'retrieval']);
    expect(env.REDIS_URL).toBe('redis://127.0.0.1:6379');
  });

  it('parses roles and numbers', () => {
    const env = parseEnv(appEnvSchemas.worker, { SQLSWEEP_ROLES: 'sql, llm', SQLSWEEP_LLM_CONCURRENCY: '4' });
    expect(env.SQLSWEEP_ROLES).toEqual(['sql', 'llm']);
    expect(env.SQLSWEEP_LLM_CONCURRENCY).toBe(4);
  });

  it('reports every problem at once, naming each variable', () => {
    let error: unknown;
    try {
      parseEnv(appEnvSchemas.worker, { SQLSWEEP_ROLES: 'llm,gpu', REDIS_URL: 'localhost:6379', SQLSWEEP_LLM_CONCURRENCY: 'x' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    expect(problems).toMatch(/SQLSWEEP_ROLES\.1/);
    expect(problems).toMatch(/REDIS_URL: must be a URL/);
    expect(problems).toMatch(/SQLSWEEP_LLM_CONCURRENCY/);
  });
});
