/**
 * Test-only fault switches (docs/architecture.md, "Test-only fault switches"): a stage deliberately broken, so that a
 * test can check that a pipeline bug is caught (a nightly regression alert naming the stage). Never set in production.
 *
 * A switch must be on in both the process that plans (orchestrator or CLI: it re-keys the faulty stage, as a new
 * version of its code would) and the workers (which run the faulty code). A worker refuses a job of a faultable stage
 * whose plan disagrees with its own switch, so a faulty output is never stored under a healthy key, nor the reverse.
 */
export interface StageFaults {
  /** `rb-sql.tables` returns tables the gold SQL does not use instead of the retriever's. */
  tableRetriever?: 'wrong-tables';
}

/** The environment variable of each switch and the stage it breaks. */
export const stageFaultSwitches = {
  tableRetriever: { env: 'SQLSWEEP_TEST_FAULT_TABLE_RETRIEVER', stage: 'rb-sql.tables', values: ['wrong-tables'] },
} as const satisfies Record<keyof Required<StageFaults>, { env: string; stage: string; values: readonly string[] }>;

/** The job parameter (and key part) that says which fault a stage instance was planned with. */
export const TEST_FAULT_PARAM = 'testFault';

/**
 * The switches set in `env` (given by the caller: stages never read the environment). An unknown value is an error
 * naming the variable, so a typo cannot leave a test running healthy code while it believes it broke it.
 */
export function stageFaultsFromEnv(env: Readonly<Record<string, string | undefined>>, source = 'environment'): StageFaults {
  const faults: StageFaults = {};
  for (const [name, s] of Object.entries(stageFaultSwitches) as Array<[keyof StageFaults, (typeof stageFaultSwitches)[keyof StageFaults]]>) {
    const value = env[s.env];
    if (value === undefined || value === '') continue;
    if (!(s.values as readonly string[]).includes(value)) throw new Error(`${source}: ${s.env}=${value} is not a test fault (expected one of: ${s.values.join(', ')})`);
    faults[name] = value as StageFaults[typeof name];
  }
  return faults;
}

/** The fault `faults` sets on `stage`, if any. */
export function faultOfStage(stage: string, faults: StageFaults | undefined): string | undefined {
  if (!faults) return undefined;
  for (const [name, s] of Object.entries(stageFaultSwitches) as Array<[keyof StageFaults, { stage: string }]>) {
    if (s.stage === stage && faults[name] !== undefined) return faults[name];
  }
  return undefined;
}

/** The loud line a process prints at start-up when any switch is on; undefined when none is. */
export function stageFaultsWarning(faults: StageFaults, processName: string): string | undefined {
  const on = (Object.keys(faults) as Array<keyof StageFaults>).filter((k) => faults[k] !== undefined);
  if (on.length === 0) return undefined;
  const list = on.map((k) => `${stageFaultSwitches[k].env}=${faults[k]} (${stageFaultSwitches[k].stage} is broken on purpose)`).join(', ');
  return `TEST FAULT SWITCH ON in this ${processName}: ${list}. Results are wrong by design; never use this in production.`;
}
