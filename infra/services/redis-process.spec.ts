import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findRedisBinaries } from './redis-process';

describe('findRedisBinaries (what the Sentinel and Cluster tests skip on)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'redis-bins-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const executable = (name: string) => writeFileSync(join(dir, name), '#!/bin/sh\n', { mode: 0o755 });

  it('says in one line which binary is missing', () => {
    expect(findRedisBinaries({ PATH: dir })).toBe('no redis-server on PATH (Debian: apt-get install redis-server)');
    executable('redis-server');
    expect(findRedisBinaries({ PATH: dir })).toBe(`no redis-cli beside ${join(dir, 'redis-server')} or on PATH (Debian: apt-get install redis-tools)`);
  });

  it('finds redis-cli beside redis-server', () => {
    executable('redis-cli');
    expect(findRedisBinaries({ PATH: `/nonexistent:${dir}` })).toEqual({ server: join(dir, 'redis-server'), cli: join(dir, 'redis-cli') });
  });
});
