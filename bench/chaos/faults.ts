/**
 * The chaos benchmark's scenarios: the fault-free run, then one fault each. A fault with `inject` is done once the
 * sweep is under way and `inject` resolves when it has ended (the server is back, the process is dead); a provider
 * fault lasts the whole run, through the simulator's config.
 */
import { queryRows } from '@sqlsweep/db';
import type { RunningCli } from '@sqlsweep/testing';
import type { ChaosServers } from './servers';
import type { ScenarioStack, SimTotals } from './stack';

/**
 * The LLM calls process `pid` has claimed and not yet stored: its calls in flight. A claim's owner is
 * `host/pid/random`; undefined where claims name no owner.
 */
async function callsClaimedBy(stack: ScenarioStack, pid: number): Promise<number | undefined> {
  try {
    const rows = await queryRows<{ n: number }>(stack.db)`SELECT count(*)::int AS n FROM llm_cache_claims WHERE owner LIKE ${`%/${pid}/%`}`;
    return rows[0].n;
  } catch {
    return undefined;
  }
}

export interface FaultContext {
  stack: ScenarioStack;
  servers: ChaosServers;
  /** The CLI following the run, when the scenario started it through the CLI. */
  cli?: RunningCli;
}

export interface Scenario {
  name: string;
  description: string;
  simConfig: string;
  /** `cli`: `sqlsweep run` follows the run; `api`: created with POST /api/runs, nothing but the services attached. */
  startedBy: 'cli' | 'api';
  /** Does the fault once the sweep is under way; resolves when the fault has ended, with what it saw. */
  inject?: (ctx: FaultContext) => Promise<Record<string, number>>;
  /** The fault makes items fail for good (a permanent provider error): errored items are its expected outcome. */
  errorsItems?: boolean;
  /** The most LLM calls beyond one per distinct call the done-when criteria allow, from what `inject` and the simulator saw. */
  extraCallsAllowed: (seen: Record<string, number>, sim: SimTotals) => number;
}

export const BASE_SIM = 'bench/chaos/llm-sim-1s.yaml';
const none = () => 0;

export const faultFree: Scenario = { name: 'fault-free', description: 'no fault', simConfig: BASE_SIM, startedBy: 'cli', extraCallsAllowed: none };

export const faults: Scenario[] = [
  {
    name: 'worker-kill',
    description: 'kill -9 of one of the two worker processes while it has LLM calls in flight',
    simConfig: BASE_SIM,
    startedBy: 'cli',
    inject: async ({ stack }) => {
      const victim = stack.workers[0];
      stack.noteDescendants();
      const inFlight = await callsClaimedBy(stack, victim.child.pid!);
      const exited = new Promise((r) => victim.child.once('exit', r));
      victim.child.kill('SIGKILL');
      await exited;
      const seen: Record<string, number> = {};
      if (inFlight !== undefined) seen.callsInFlightOfKilledWorker = inFlight;
      return seen;
    },
    // Without claim owners (older schema), the calls the simulator answered to nobody stand in for them.
    extraCallsAllowed: (seen, sim) => seen.callsInFlightOfKilledWorker ?? sim.abandoned,
  },
  {
    name: 'redis-restart',
    description: 'Redis shut down (SIGTERM, AOF written), 5 s without Redis, then started again from its AOF on the same port',
    simConfig: BASE_SIM,
    startedBy: 'cli',
    inject: async ({ servers }) => {
      await servers.restartRedis(5_000);
      return {};
    },
    extraCallsAllowed: none,
  },
  {
    name: 'redis-emptied',
    description: 'FLUSHALL on Redis (every job, lock and queue gone) for a run created with POST /api/runs, no CLI following it',
    simConfig: BASE_SIM,
    startedBy: 'api',
    inject: async ({ servers }) => {
      await servers.flushRedis();
      return {};
    },
    extraCallsAllowed: none,
  },
  {
    name: 'redis-keys-lost',
    description: 'the run\'s Redis keys removed one at a time in random order (three passes, 1 ms apart), as eviction does, while the workers go on adding jobs; run created with POST /api/runs, no CLI following it',
    simConfig: BASE_SIM,
    startedBy: 'api',
    inject: async ({ servers, stack }) => ({ keysRemoved: await servers.loseKeysOneByOne(stack.prefix, 3, 1) }),
    extraCallsAllowed: none,
  },
  {
    name: 'postgres-restart',
    description: 'Postgres stopped as a crash does (pg_ctl -m immediate), 5 s without Postgres, then started again (WAL recovery) on the same port',
    simConfig: BASE_SIM,
    startedBy: 'cli',
    inject: async ({ servers }) => {
      await servers.restartPostgres(5_000);
      return {};
    },
    extraCallsAllowed: none,
  },
  {
    name: 'cli-kill',
    description: 'kill -9 of the `sqlsweep run` that created and follows the run',
    simConfig: BASE_SIM,
    startedBy: 'cli',
    inject: async ({ cli }) => {
      const exited = new Promise((r) => cli!.child.once('exit', r));
      cli!.child.kill('SIGKILL');
      await exited;
      return {};
    },
    extraCallsAllowed: none,
  },
  {
    name: 'provider-400-one-stage',
    description: 'the provider answers 400 (context length exceeded) to every R3 decompose call (stage protocol sub_questions), for the whole run',
    simConfig: 'bench/chaos/llm-sim-refuse-decompose.yaml',
    startedBy: 'cli',
    errorsItems: true,
    extraCallsAllowed: none,
  },
  {
    name: 'provider-30pct-500',
    description: 'the provider answers 500 to 30 % of calls, for the whole run',
    simConfig: 'bench/chaos/llm-sim-30pct-500.yaml',
    startedBy: 'cli',
    extraCallsAllowed: none,
  },
];
