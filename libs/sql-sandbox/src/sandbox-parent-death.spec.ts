import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';

const repoRoot = join(__dirname, '../../..');
const RUNAWAY = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c';

/** Pids of the live (not zombie) children of `ppid`, from /proc. */
function liveChildren(ppid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // stat: "pid (comm) state ppid ...": comm may hold spaces, so read past its closing parenthesis.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, parent] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(parent) === ppid && state !== 'Z') out.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return out;
}

function isRunning(pid: number): boolean {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

(process.platform === 'linux' ? describe : describe.skip)('a sandbox child whose parent dies', () => {
  let dir: string;
  let parent: ChildProcess | undefined;
  let sandboxPids: number[] = [];
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sqlsweep-orphan-'));
    const db = new Database(join(dir, 'shop.sqlite'));
    db.exec('CREATE TABLE item (id INTEGER PRIMARY KEY)');
    db.close();
  });
  afterAll(() => {
    parent?.kill('SIGKILL');
    for (const pid of sandboxPids.filter(isRunning)) process.kill(pid, 'SIGKILL'); // only if the test failed
    rmSync(dir, { recursive: true, force: true });
  });

  it('exits within two seconds of its parent being SIGKILLed mid-query', async () => {
    // The parent: a Node process with a pool whose only child runs a query that never ends.
    const script = `
      const { SandboxPool } = require('./libs/sql-sandbox/src/sandbox-pool.ts');
      const pool = new SandboxPool({ size: 1, standby: false, deadlineMs: 600000 });
      pool.ready().then(() => { pool.execute({ dbPath: ${JSON.stringify(join(dir, 'shop.sqlite'))}, sql: ${JSON.stringify(RUNAWAY)} }); console.log('running'); });
    `;
    parent = spawn(process.execPath, ['-r', '@swc-node/register', '-e', script], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve, reject) => {
      parent!.once('exit', (code) => reject(new Error(`pool parent exited early (${code})`)));
      createInterface({ input: parent!.stdout! }).once('line', () => resolve());
    });
    await new Promise((r) => setTimeout(r, 300)); // the query is now well under way in the child
    sandboxPids = liveChildren(parent.pid!);
    expect(sandboxPids).toHaveLength(1);
    expect(isRunning(sandboxPids[0])).toBe(true);

    parent.kill('SIGKILL');
    const deadline = Date.now() + 2_000;
    while (Date.now() < deadline && sandboxPids.some(isRunning)) await new Promise((r) => setTimeout(r, 20));
    expect(sandboxPids.filter(isRunning)).toEqual([]);
  });
});
