const createdRun = /run ([0-9a-f-]{36}) created/;

/** The id in `sqlsweep run`'s `run <id> created` line, or undefined while it has not printed one. */
export function findRunId(stdout: string): string | undefined {
  return createdRun.exec(stdout)?.[1];
}

/** The id in `sqlsweep run`'s `run <id> created` line. */
export function runIdOf(stdout: string): string {
  const id = findRunId(stdout);
  if (!id) throw new Error(`no "run <id> created" line in the output:\n${stdout}`);
  return id;
}

export interface DryRunTotals { needed: number; reused: number; llmCalls: number; inputTokens: number }

/** `total  <jobs needed>  <reused>  <LLM calls>  <input tokens> ...` from a dry-run's stage table. */
export function dryRunTotals(stdout: string): DryRunTotals {
  const m = /^total\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)/m.exec(stdout);
  if (!m) throw new Error(`no total line in the dry-run output:\n${stdout}`);
  return { needed: Number(m[1]), reused: Number(m[2]), llmCalls: Number(m[3]), inputTokens: Number(m[4]) };
}
