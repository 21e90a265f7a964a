import type { z } from 'zod';
import { formatPath } from '@sqlsweep/contracts';

/** A request the API refuses: answered 400 with the field at fault and the reason. */
export class ApiRequestError extends Error {
  constructor(readonly field: string, readonly reason: string) {
    super(`${field}: ${reason}`);
    this.name = 'ApiRequestError';
  }
}

/** Parses `value` (a query, a body, a path parameter) with `schema`; the first issue becomes a 400. */
export function parseRequest<S extends z.ZodType>(schema: S, value: unknown, where: 'query' | 'body' | 'path'): z.output<S> {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = formatPath(issue.path);
  const field = issue.code === 'unrecognized_keys' ? `${where}.${issue.keys.join(',')}` : path ? `${where}.${path}` : where;
  return thrower(field, issue.message);
}

function thrower(field: string, reason: string): never {
  throw new ApiRequestError(field, reason);
}
