// One bench worker process: sends text-to-SQL requests through LlmClient until the deadline, with or without
// the shared Redis budget, and reports its counts to the parent over IPC.
import { Redis } from 'ioredis';
import { LlmClient, LlmError, RedisRateBudget, parseModelCatalog } from '@sqlsweep/llm';
import { spiderPrompts } from './prompts';

interface WorkerArgs {
  simUrl: string;
  spiderDir: string;
  limiter: boolean;
  concurrency: number;
  workerIndex: number;
  redisUrl: string;
  redisPrefix: string;
  /** `tpm` alone: one limit charged prompt + max_tokens (OpenAI); inputTpm + outputTpm: counted apart. */
  limits: { rpm: number; tpm?: number; inputTpm?: number; outputTpm?: number; concurrency: number };
  /** max_tokens sent with every call (omitted: the catalog's default). */
  maxTokens?: number;
  /** The budget's burst under a rolling window: within its headroom of the server's window. */
  rollingBurstSeconds?: number;
  /** The stage every call is attributed to: the client then learns the stage's output cap (sent as max_tokens). */
  stage?: string;
}

export interface WorkerReport {
  workerIndex: number;
  completed: number;
  attempts: number;
  rateLimited: number;
  serverErrors: number;
  otherErrors: number;
  inputTokens: number;
  outputTokens: number;
  budgetWaitMs: number;
  /** When each provider 429 came back (epoch ms). */
  rateLimitedAt: number[];
  /** What the client reported when the provider said it allows more than declared. */
  declaredTooLow: string | null;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function waitForStart(): Promise<number> {
  return new Promise((resolve) => process.once('message', (m: { deadline: number }) => resolve(m.deadline)));
}

async function main(args: WorkerArgs): Promise<WorkerReport> {
  const catalog = parseModelCatalog(
    {
      providers: { sim: { kind: 'openai-compatible', baseUrl: args.simUrl, simulated: true, timeoutMs: 30_000 } },
      models: {
        'bench-model': { provider: 'sim', pricing: { inputPerMTok: 2, cachedInputPerMTok: 0.5, outputPerMTok: 8 }, contextWindow: 128_000, limits: args.limits },
      },
    },
    'bench catalog',
  );
  const redis = args.limiter ? new Redis(args.redisUrl, { maxRetriesPerRequest: null }) : undefined;
  // A budget wait longer than 2 s comes back as rate_limited, as it would to a queue job that then reschedules.
  const budget = redis ? new RedisRateBudget({ redis, keyPrefix: args.redisPrefix, maxWaitMs: 2_000, ...(args.rollingBurstSeconds ? { rollingBurstSeconds: args.rollingBurstSeconds } : {}) }) : undefined;
  const client = new LlmClient({ catalog, env: {}, ...(budget ? { budget } : {}) });
  const prompts = spiderPrompts(args.spiderDir);
  const report: WorkerReport = { workerIndex: args.workerIndex, completed: 0, attempts: 0, rateLimited: 0, serverErrors: 0, otherErrors: 0, inputTokens: 0, outputTokens: 0, budgetWaitMs: 0, rateLimitedAt: [], declaredTooLow: null };
  let next = args.workerIndex * 1000;
  (await import('@sqlsweep/llm')).estimateTokens('bench-model', prompts[0]!); // load the tokenizer before the clock starts
  process.send?.({ ready: true });
  const deadline = await waitForStart();

  const lane = async () => {
    while (Date.now() < deadline) {
      const messages = prompts[next++ % prompts.length]!;
      // One logical request, retried the way the queue would: after Retry-After on 429, shortly after a 500.
      for (;;) {
        if (Date.now() >= deadline) return;
        report.attempts++;
        try {
          const started = Date.now();
          const res = await client.complete({ model: 'bench-model', messages, temperature: 0, sampleIndex: 0, templateVersion: 'bench', noCache: true, ...(args.maxTokens ? { maxTokens: args.maxTokens } : {}), ...(args.stage ? { attribution: { stage: args.stage } } : {}) });
          report.budgetWaitMs += Date.now() - started - res.latencyMs;
          report.completed++;
          report.inputTokens += res.usage.inputTokens;
          report.outputTokens += res.usage.outputTokens;
          break;
        } catch (err) {
          if (!(err instanceof LlmError)) throw err;
          if (err.code === 'rate_limited') {
            // A budget refusal never reached the provider; only a provider 429 is a wasted attempt.
            if (err.status === 429) {
              report.rateLimited++;
              report.rateLimitedAt.push(Date.now());
            }
            else report.attempts--;
            await sleep(Math.min(err.retryAfterMs ?? 1000, Math.max(0, deadline - Date.now())));
          } else if (err.code === 'server' || err.code === 'network' || err.code === 'timeout') {
            report.serverErrors++;
            await sleep(200);
          } else {
            report.otherErrors++;
            break;
          }
        }
      }
    }
  };
  await Promise.all(Array.from({ length: args.concurrency }, lane));
  report.declaredTooLow = client.limitsDeclaredTooLow.get('bench-model') ?? null;
  await redis?.quit();
  return report;
}

process.once('message', (args: WorkerArgs) => {
  main(args)
    .then((report) => process.send?.(report, () => process.exit(0)))
    .catch((err: Error) => {
      process.stderr.write(`bench worker ${args.workerIndex}: ${err.stack ?? err.message}\n`);
      process.exit(1);
    });
});
