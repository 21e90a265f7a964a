import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withFileLock } from './file-lock';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sqlsweep-lock-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('runs one holder at a time and removes the lock afterwards', async () => {
  const lock = join(dir, 'x.lock');
  const order: string[] = [];
  await Promise.all(
    ['a', 'b'].map((name) =>
      withFileLock(lock, async () => {
        order.push(`${name}+`);
        await new Promise((r) => setTimeout(r, 50));
        order.push(`${name}-`);
      }),
    ),
  );
  expect(order.join(' ')).toMatch(/^(a\+ a- b\+ b-|b\+ b- a\+ a-)$/);
  expect(existsSync(lock)).toBe(false);
});

it('takes over a lock left by a dead process', async () => {
  const lock = join(dir, 'x.lock');
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  writeFileSync(lock, dead.stdout);
  await expect(withFileLock(lock, async () => 'ran', 2_000)).resolves.toBe('ran');
});

it('waits for a live owner and names the lock and the owner when it gives up', async () => {
  const lock = join(dir, 'x.lock');
  const owner = spawn(process.execPath, ['-e', 'setTimeout(() => undefined, 30000)']);
  try {
    writeFileSync(lock, String(owner.pid));
    await expect(withFileLock(lock, async () => 'ran', 300)).rejects.toThrow(`${lock}: still locked by pid ${owner.pid}`);
  } finally {
    owner.kill();
  }
});
