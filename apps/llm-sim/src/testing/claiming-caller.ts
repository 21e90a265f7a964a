// A worker stand-in for the claim tests: claims and makes one LLM call (CLAIM_REQUEST) through Postgres
// (CLAIM_DATABASE_URL) and the simulator (SIM_URL), to be SIGKILLed while the call is in flight.
import { Pool } from 'pg';
import { LlmCacheRepository } from '@sqlsweep/db';
import { LlmClient, type LlmRequest } from '@sqlsweep/llm';
import { claimCatalog } from './claim-fixtures';

async function main(): Promise<void> {
  const pool = new Pool({ connectionString: process.env.CLAIM_DATABASE_URL, max: 2 });
  const client = new LlmClient({
    catalog: claimCatalog(),
    env: { SIM_URL: process.env.SIM_URL, SIM_KEY: 'sk-claims' },
    cache: new LlmCacheRepository(pool),
    claims: { ttlMs: Number(process.env.CLAIM_TTL_MS) },
  });
  const response = await client.complete(JSON.parse(process.env.CLAIM_REQUEST!) as LlmRequest);
  process.stdout.write(`${JSON.stringify({ output: response.output })}\n`);
  await client.close();
  await pool.end();
}

main().catch((err: Error) => {
  process.stderr.write(`${err.stack ?? err.message}\n`);
  process.exit(1);
});
