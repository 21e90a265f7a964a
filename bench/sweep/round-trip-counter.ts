/**
 * Preloaded into the benchmark's workers: counts the Postgres queries (each a round trip; a multi-statement query
 * string is one) and the Redis commands the worker sends. On SIGUSR2 it writes the counts so far to
 * `<SQLSWEEP_BENCH_COUNTS_DIR>/round-trips-<pid>.json`, so the benchmark can take them before and after a sweep.
 * Counts do not depend on how loaded the machine is, unlike the times beside them. Sandbox children are not counted.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.env.SQLSWEEP_BENCH_COUNTS_DIR;
if (dir && process.argv.some((a) => a.endsWith('apps/worker/src/main.ts'))) {
  const counts = { postgresQueries: 0, redisCommands: 0, snapshots: 0, byKind: {} as Record<string, number> };
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { Client } = require('pg') as typeof import('pg');
  const { Redis } = require('ioredis') as typeof import('ioredis');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const count = <T extends object>(proto: T, method: keyof T, field: 'postgresQueries' | 'redisCommands', kind: (arg: unknown) => string) => {
    const original = proto[method] as unknown as (...args: unknown[]) => unknown;
    (proto as Record<keyof T, unknown>)[method] = function (this: unknown, ...args: unknown[]) {
      counts[field]++;
      const k = `${field === 'postgresQueries' ? 'pg' : 'redis'} ${kind(args[0])}`;
      counts.byKind[k] = (counts.byKind[k] ?? 0) + 1;
      return original.apply(this, args);
    };
  };
  // A query by its prepared name, or by its first words; a Redis command by its name (BullMQ's scripts all as evalsha).
  // A script of libs/db executeScript (or its PREPARE) by each statement's first words, without the connection's id
  // and the literals (`BEGIN; EXECUTE script_save_stage_results; COMMIT; EXECUTE script_ready_dependents`).
  const words = (text: string) => /\bscript_\w+_[0-9a-f]+_\d+\b/.test(text)
    ? text.split(';\n').map((st) => st.replace(/\s*\(.*$/s, '').replace(/\s+AS\s.*$/s, '').replace(/\b(script_\w+)_[0-9a-f]+_\d+$/, '$1').replace(/\s+/g, ' ').trim()).join('; ')
    : text.replace(/\s+/g, ' ').trim().slice(0, 40);
  const statement = (q: unknown) => {
    const named = q as { name?: string; text?: string } | string;
    if (typeof named === 'string') return words(named);
    return named?.name?.replace(/\.[0-9a-f]+_\d+$/, '') ?? words(named?.text ?? '');
  };
  count(Client.prototype, 'query', 'postgresQueries', statement);
  count(Redis.prototype, 'sendCommand', 'redisCommands', (c) => String((c as { name?: string })?.name ?? '?'));
  process.on('SIGUSR2', () => {
    counts.snapshots++;
    const file = join(dir, `round-trips-${process.pid}.json`);
    writeFileSync(`${file}.tmp`, JSON.stringify(counts));
    renameSync(`${file}.tmp`, file);
  });
}
