/**
 * Preloaded into the benchmark's workers: counts the Postgres queries (each a round trip; a multi-statement query
 * string is one) and the Redis commands the worker sends. On SIGUSR2 it writes the counts so far to
 * `<SQLSWEEP_BENCH_COUNTS_DIR>/round-trips-<pid>.json`, so the benchmark can take them before and after a sweep.
 * Counts do not depend on how loaded the machine is, unlike the times beside them. The queries the worker sends to its
 * sandbox children (each an IPC round trip and a SQLite run; memo hits are never sent) are counted as `sandboxQueries`.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.env.SQLSWEEP_BENCH_COUNTS_DIR;
if (dir && process.argv.some((a) => a.endsWith('apps/worker/src/main.ts'))) {
  const counts = { postgresQueries: 0, redisCommands: 0, sandboxQueries: 0, snapshots: 0, byKind: {} as Record<string, number> };
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { Client } = require('pg') as typeof import('pg');
  const { Redis } = require('ioredis') as typeof import('ioredis');
  const childProcess = require('node:child_process') as typeof import('node:child_process');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const count = <T extends object>(proto: T, method: keyof T, field: 'postgresQueries' | 'redisCommands', kind: (this: unknown, arg: unknown) => string) => {
    const original = proto[method] as unknown as (...args: unknown[]) => unknown;
    (proto as Record<keyof T, unknown>)[method] = function (this: unknown, ...args: unknown[]) {
      counts[field]++;
      const k = `${field === 'postgresQueries' ? 'pg' : 'redis'} ${kind.call(this, args[0])}`;
      counts.byKind[k] = (counts.byKind[k] ?? 0) + 1;
      return original.apply(this, args);
    };
  };
  // A query by its prepared name, or by its first words; a Redis command by its name; a sandbox query by its first
  // two words, and the runs of timing requests (repeat > 1) beside.
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
  // BullMQ's and our scripts go out as evalsha; each is named by the script the connection registered under that SHA
  // (a SHA is the script's text, so one name serves every connection).
  const scriptNames = new Map<unknown, string>();
  count(Redis.prototype, 'sendCommand', 'redisCommands', function (this: unknown, c: unknown) {
    const cmd = c as { name?: string; args?: unknown[] };
    if (cmd?.name !== 'evalsha') return String(cmd?.name ?? '?');
    const sha = cmd.args?.[0];
    let name = scriptNames.get(sha);
    if (name === undefined) {
      const scripts = (this as { scriptsSet?: Record<string, { sha: string }> }).scriptsSet ?? {};
      name = Object.entries(scripts).find(([, script]) => script.sha === sha)?.[0];
      if (name === undefined) return 'evalsha ?';
      scriptNames.set(sha, name);
    }
    return `evalsha ${name}`;
  });
  // The sandbox pool forks its children through the module's export, so a child forked later is seen here.
  const fork = childProcess.fork;
  childProcess.fork = function (this: unknown, ...args: unknown[]) {
    const child = (fork as (...a: unknown[]) => import('node:child_process').ChildProcess).apply(this, args);
    const send = child.send.bind(child) as (...a: unknown[]) => boolean;
    child.send = ((message: unknown, ...rest: unknown[]) => {
      const sql = (message as { sql?: unknown })?.sql;
      if (typeof sql === 'string') {
        counts.sandboxQueries++;
        const repeat = Number((message as { repeat?: unknown }).repeat ?? 1);
        if (repeat > 1) counts.byKind['sandbox timed runs'] = (counts.byKind['sandbox timed runs'] ?? 0) + repeat;
        const k = `sandbox ${sql.trim().split(/\s+/, 2).join(' ').toUpperCase()}`;
        counts.byKind[k] = (counts.byKind[k] ?? 0) + 1;
      }
      return send(message, ...rest);
    }) as typeof child.send;
    return child;
  } as typeof fork;
  process.on('SIGUSR2', () => {
    counts.snapshots++;
    const file = join(dir, `round-trips-${process.pid}.json`);
    writeFileSync(`${file}.tmp`, JSON.stringify(counts));
    renameSync(`${file}.tmp`, file);
  });
}
