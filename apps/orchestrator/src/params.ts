import { z } from 'zod';
import { ApiRequestError } from './request-error';

const uuid = z.string().uuid();

/** A path parameter that must be a UUID; anything else is a 400 naming it. */
export function uuidParam(value: string, name: string): string {
  if (!uuid.safeParse(value).success) throw new ApiRequestError(`path.${name}`, 'expected a UUID');
  return value;
}

export function intParam(value: string, name: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1) throw new ApiRequestError(`path.${name}`, 'expected a positive integer');
  return n;
}
