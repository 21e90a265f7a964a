import { spawn } from 'node:child_process';
import { join } from 'node:path';
import OpenAI from 'openai';
import { BIRD_SAMPLE, SPIDER_SAMPLE, sqlOf, sqlPrompt } from './testing/sim-fixtures';

const root = join(__dirname, '..', '..', '..');

describe('llm-sim as a process', () => {
  it('starts from the command line with configs/llm-sim.yaml and serves the OpenAI SDK', async () => {
    const child = spawn(
      process.execPath,
      ['-r', '@swc-node/register', 'apps/llm-sim/src/main.ts', '--port', '0', '--dataset', BIRD_SAMPLE, SPIDER_SAMPLE, '--seed', '3'],
      { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /"url":"([^"]+)"/.exec(out);
          if (m) resolve(m[1]!);
        });
        child.stderr.on('data', (d: Buffer) => (out += d.toString()));
        child.once('exit', (code) => reject(new Error(`llm-sim exited with ${code}: ${out}`)));
      });
      const sdk = new OpenAI({ apiKey: 'any', baseURL: `${url}/v1`, maxRetries: 0 });
      // The configured sim-strong reads the prompt: it is shown the gold's table, and says what it saw.
      const messages = sqlPrompt('How many singers do we have?', undefined, 'CREATE TABLE singer (\n  Singer_ID int,\n  Name text\n);');
      const { data: res, response } = await sdk.chat.completions.create({ model: 'sim-strong', messages, temperature: 0 }).withResponse();
      expect(sqlOf(res.choices[0]!.message.content!)).toMatch(/\bsinger\b/i);
      expect(res.system_fingerprint).toBe('sqlsweep-llm-sim');
      expect(Number(response.headers.get('x-sim-probability'))).toBeGreaterThan(0.5);
      expect(JSON.parse(response.headers.get('x-sim-features')!)).toMatchObject({ goldReachable: true, schemaRecall: 1, noiseTables: 0, hardness: 'easy' });
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('exits with a clear error for a folder that is not a dataset', async () => {
    const child = spawn(process.execPath, ['-r', '@swc-node/register', 'apps/llm-sim/src/main.ts', '--port', '0', '--dataset', __dirname], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    expect(err).toMatch(/no dev.json .* found \(expected a BIRD or Spider layout\)/);
  });
});
