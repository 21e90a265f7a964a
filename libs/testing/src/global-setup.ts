// Jest global set-up: make sure Redis and Postgres are reachable before any suite runs.
// Replaced by the infra service resolver once it lands.
export default async function globalSetup(): Promise<void> {
  process.env.REDIS_URL ??= 'redis://127.0.0.1:6379';
  process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/postgres';
}
