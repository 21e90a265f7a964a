import { z } from 'zod';
import { parseRequest, ApiRequestError } from './request-error';

describe('parseRequest', () => {
  const schema = z.object({ limit: z.coerce.number().int().min(1), nested: z.object({ a: z.string() }).optional() }).strict();

  const fieldOf = (value: unknown, where: 'query' | 'body') => {
    try {
      parseRequest(schema, value, where);
      return undefined;
    } catch (e) {
      return e instanceof ApiRequestError ? { field: e.field, reason: e.reason } : e;
    }
  };

  it('names the field and the reason of the first problem', () => {
    expect(fieldOf({ limit: '0' }, 'query')).toEqual({ field: 'query.limit', reason: expect.stringMatching(/>=\s*1|at least|too small/i) });
    expect(fieldOf({ limit: '2', nested: { a: 3 } }, 'body')).toEqual({ field: 'body.nested.a', reason: expect.any(String) });
    expect(fieldOf({ limit: '2', extra: 1 }, 'query')).toEqual({ field: 'query.extra', reason: expect.any(String) });
    expect(parseRequest(schema, { limit: '2' }, 'query')).toEqual({ limit: 2 });
  });
});
