import { Injectable, type ArgumentMetadata, type PipeTransform } from '@nestjs/common';
import { ApiRequestError } from './request-error';

const where = { param: 'path', query: 'query', body: 'body' } as const;

/** The first string under `value` holding a NUL byte, as a field path below `at` (keys included), or null. */
export function nulBytePath(value: unknown, at: string): string | null {
  if (typeof value === 'string') return value.includes('\0') ? at : null;
  if (value === null || typeof value !== 'object') return null;
  for (const [key, v] of Object.entries(value)) {
    const field = Array.isArray(value) ? `${at}[${key}]` : `${at}.${key}`;
    if (key.includes('\0')) return at;
    const found = nulBytePath(v, field);
    if (found) return found;
  }
  return null;
}

/**
 * Refuses a NUL byte in any path parameter, query value or body string with a 400 naming the field: no text the API
 * takes can hold one, and Postgres refuses it in text, which would otherwise surface as a 500.
 */
@Injectable()
export class NulBytePipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    if (metadata.type === 'custom') return value;
    const root = metadata.data ? `${where[metadata.type]}.${metadata.data}` : where[metadata.type];
    const field = nulBytePath(value, root);
    if (field) throw new ApiRequestError(field, 'a NUL byte (\\u0000) is not allowed');
    return value;
  }
}
