// The planning process of streaming-plan.int-spec's kill test: plans the sweep config on stdin for real, in chunks of
// 5 stages, printing "chunk N" after each and then waiting 100 ms, so that the test can kill it midway.
// Settings (an orchestrator core's) come as JSON in argv[2].
import { parseSweepConfig } from '@sqlsweep/contracts';
import { OrchestratorCore, type CoreSettings } from '../core';

async function main(): Promise<void> {
  const core = new OrchestratorCore(JSON.parse(process.argv[2]) as CoreSettings);
  let text = '';
  for await (const part of process.stdin) text += String(part);
  const { runId } = await core.planner.planRun(parseSweepConfig(text, 'killed.yaml'), 'killed.yaml', {
    chunkSize: 5,
    onChunk: async ({ chunks }) => {
      process.stdout.write(`chunk ${chunks}\n`);
      await new Promise((r) => setTimeout(r, 100));
    },
  });
  process.stdout.write(`planned ${runId}\n`);
  await core.close();
}

main().catch((e: Error) => {
  process.stderr.write(`${e.stack}\n`);
  process.exit(1);
});
