import { execFileSync, spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { buildProgram, commandNames } from './program';

const repoRoot = resolve(__dirname, '../../..');
const bin = join(repoRoot, 'bin', 'sqlsweep');

function sqlsweep(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: repoRoot, encoding: 'utf8', env: { ...process.env, DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The command names of a help text's "Commands:" section, in order. */
function listedCommands(help: string): string[] {
  const section = help.split('\nCommands:\n')[1] ?? '';
  return section.split('\n').filter((l) => /^ {2}\S/.test(l)).map((l) => l.trim().split(/\s/)[0]);
}

describe('sqlsweep commands, loaded on demand', () => {
  it('registers only the command argv names, for each command', async () => {
    for (const name of commandNames) {
      const program = await buildProgram(['node', 'sqlsweep', name, '--help']);
      expect(program.commands.map((c) => c.name())).toEqual([name]);
    }
    const index = await buildProgram(['node', 'sqlsweep', 'index']);
    expect(index.commands[0].commands.map((c) => c.name())).toEqual(['status', 'build']);
  });

  it('registers every command without a command name, for help, or for an unknown name', async () => {
    for (const argv of [['node', 'sqlsweep'], ['node', 'sqlsweep', '--help'], ['node', 'sqlsweep', 'help', 'status'], ['node', 'sqlsweep', 'nosuch']]) {
      expect((await buildProgram(argv)).commands.map((c) => c.name())).toEqual(commandNames);
    }
  });

  it('`sqlsweep --help` lists every command; `sqlsweep help status` and `sqlsweep status --help` show the command', () => {
    const help = sqlsweep(['--help']);
    expect(help.code).toBe(0);
    expect(listedCommands(help.stdout)).toEqual([...commandNames, 'help']);
    for (const args of [['help', 'status'], ['status', '--help']]) {
      const r = sqlsweep(args);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('Usage: sqlsweep status [options] [runId]');
    }
  });

  it('an unknown command is an error that lists every command', () => {
    const r = sqlsweep(['nosuch']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("error: unknown command 'nosuch'");
    expect(listedCommands(r.stderr)).toEqual([...commandNames, 'help']);
  });

  it('`sqlsweep status` loads neither the orchestrator, the pipelines, the queues nor their packages', () => {
    const script = `
      require(${JSON.stringify(join(repoRoot, 'bin', 'ts-hook.js'))}).register();
      require(${JSON.stringify(join(__dirname, 'program.ts'))}).buildProgram(['node', 'sqlsweep', 'status']).then((program) => {
        console.log(JSON.stringify({ commands: program.commands.map((c) => c.name()), loaded: Object.keys(require.cache) }));
      });`;
    const { commands, loaded } = JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: repoRoot, encoding: 'utf8' })) as { commands: string[]; loaded: string[] };
    expect(commands).toEqual(['status']);
    const heavy = loaded.filter((f) => /\/libs\/(orchestration|pipelines|queue|retrieval|llm)\/|\/node_modules\/(bullmq|onnxruntime-node|node-sql-parser|typescript)\//.test(f));
    expect(heavy).toEqual([]);
  });
});
