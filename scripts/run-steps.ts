import { spawn } from 'node:child_process';

export interface Step { name: string; command: string; args: string[]; env?: NodeJS.ProcessEnv }

/** Runs steps one after another with inherited output; stops at the first failure with its exit code. */
export async function runSteps(steps: Step[], cwd: string): Promise<void> {
  for (const step of steps) {
    const started = Date.now();
    console.log(`\n▶ ${step.name}`);
    const code = await new Promise<number>((resolve) => {
      const child = spawn(step.command, step.args, { cwd, stdio: 'inherit', env: { ...process.env, ...step.env } });
      child.on('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0)));
    });
    if (code !== 0) {
      console.error(`✖ ${step.name} failed (exit ${code})`);
      process.exit(code);
    }
    console.log(`✔ ${step.name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  }
}
