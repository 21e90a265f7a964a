import { ConflictException, NotFoundException } from '@nestjs/common';
import { z } from 'zod';
import { isIdPrefix, runsNamedBy, type Db } from '@sqlsweep/db';
import { ApiRequestError } from './request-error';

const uuid = z.string().uuid();

/** A path parameter that must be a UUID; anything else is a 400 naming it. */
export function uuidParam(value: string, name: string): string {
  if (!uuid.safeParse(value).success) throw new ApiRequestError(`path.${name}`, 'expected a UUID');
  return value;
}

const notAnId = (name: string) => new ApiRequestError(`path.${name}`, 'expected a UUID or the first 4 or more hex digits of one');

function checkPrefix(value: string, name: string): void {
  if (!isIdPrefix(value)) throw notAnId(name);
}

/** One of several ids matches: a 409 that lists them, so the caller can give more digits. */
function ambiguous(kind: string, value: string, ids: string[]): ConflictException {
  return new ConflictException(`${kind} id prefix "${value}" is ambiguous: it matches ${ids.slice(0, 5).join(', ')}${ids.length > 5 ? ', …' : ''}; give more digits`);
}

/**
 * A run id in a path: a full UUID, or a prefix of one (the 8-character short id the dashboard and CLI show) that
 * resolves when exactly one run starts with it. No match is a 404, several a 409, anything but hex digits a 400.
 */
export async function resolveRunId(db: Db, value: string, name = 'runId'): Promise<string> {
  const ids = await runsNamedBy(db, value);
  if (!ids) throw notAnId(name);
  if (ids.length === 0) throw new NotFoundException(`no run ${value}`);
  if (ids.length > 1) throw ambiguous('run', value, ids);
  return ids[0];
}

/** A variant id in a path, full or a prefix, among the run's variants (`ids`); 404 / 409 / 400 as for runs. */
export function resolveVariantId(ids: string[], value: string, runId: string, name = 'variantId'): string {
  checkPrefix(value, name);
  const v = value.toLowerCase();
  const hits = ids.filter((id) => id.startsWith(v) || id.replace(/-/g, '').startsWith(v.replace(/-/g, '')));
  if (hits.length === 0) throw new NotFoundException(`run ${runId} has no variant ${value}`);
  if (hits.length > 1 && !hits.includes(v)) throw ambiguous('variant', value, hits);
  return hits.includes(v) ? v : hits[0];
}

export function intParam(value: string, name: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1) throw new ApiRequestError(`path.${name}`, 'expected a positive integer');
  return n;
}
