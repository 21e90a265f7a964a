import { Command, InvalidArgumentError } from 'commander';
import { startLlmSimulator } from './server';

function integer(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`expected a non-negative integer, got "${value}"`);
  return n;
}

const program = new Command('llm-sim')
  .description('OpenAI- and Anthropic-compatible LLM simulator answering from a dataset\'s gold SQL')
  .option('--host <host>', 'address to listen on', '127.0.0.1')
  .option('--port <port>', 'port (0 = any free port)', integer, 8787)
  .requiredOption('--dataset <dir...>', 'BIRD- or Spider-layout dataset folder(s) to learn the gold from')
  .option('--seed <n>', 'seed of the simulated answers', integer, 0)
  .option('--config <file>', 'simulator config (models, answer-model weights, limits, latency, failures)', 'configs/llm-sim.yaml')
  .parse();

const opts = program.opts<{ host: string; port: number; dataset: string[]; seed: number; config: string }>();

startLlmSimulator({ host: opts.host, port: opts.port, datasetDirs: opts.dataset, seed: opts.seed, configFile: opts.config })
  .then((sim) => {
    process.stdout.write(`${JSON.stringify({ msg: 'llm-sim listening', url: sim.url, questions: sim.simulator.index.size })}\n`);
    const stop = () => void sim.close().then(() => process.exit(0));
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  })
  .catch((err: Error) => {
    process.stderr.write(`llm-sim: ${err.message}\n`);
    process.exit(1);
  });
