import { expandVariants, parseSweepConfig } from '@sqlsweep/contracts';
import { pipelines } from './registry';
import { VariantKeyer } from './stage-keys';
import { faultOfStage, stageFaultsFromEnv, stageFaultsWarning, TEST_FAULT_PARAM } from './test-faults';

const [variant] = expandVariants(parseSweepConfig('name: t\ndataset: minibench\nmodels: [sim-weak]\npipelines:\n  - pipeline: rb-sql\n    grid: { theta: [4] }\n', 't.yaml'));
const ctx = { datasetVersion: 'v1', trainItemIds: ['train-1', 'train-2'] };

describe('test fault switches', () => {
  it('reads SQLSWEEP_TEST_FAULT_TABLE_RETRIEVER, ignores it unset or empty, and names the variable for a value it does not know', () => {
    expect(stageFaultsFromEnv({})).toEqual({});
    expect(stageFaultsFromEnv({ SQLSWEEP_TEST_FAULT_TABLE_RETRIEVER: '' })).toEqual({});
    expect(stageFaultsFromEnv({ SQLSWEEP_TEST_FAULT_TABLE_RETRIEVER: 'wrong-tables' })).toEqual({ tableRetriever: 'wrong-tables' });
    expect(() => stageFaultsFromEnv({ SQLSWEEP_TEST_FAULT_TABLE_RETRIEVER: 'random' }, 'worker environment'))
      .toThrow('worker environment: SQLSWEEP_TEST_FAULT_TABLE_RETRIEVER=random is not a test fault (expected one of: wrong-tables)');
  });

  it('says loudly which stage is broken, and nothing when no switch is on', () => {
    expect(stageFaultsWarning({}, 'worker')).toBeUndefined();
    expect(stageFaultsWarning({ tableRetriever: 'wrong-tables' }, 'worker'))
      .toMatch(/^TEST FAULT SWITCH ON in this worker: SQLSWEEP_TEST_FAULT_TABLE_RETRIEVER=wrong-tables \(rb-sql\.tables is broken on purpose\)/);
  });

  it('breaks only the table retriever', () => {
    expect(faultOfStage('rb-sql.tables', { tableRetriever: 'wrong-tables' })).toBe('wrong-tables');
    expect(faultOfStage('rb-sql.columns', { tableRetriever: 'wrong-tables' })).toBeUndefined();
    expect(faultOfStage('rb-sql.tables', {})).toBeUndefined();
    expect(faultOfStage('rb-sql.tables', undefined)).toBeUndefined();
  });

  it('re-keys the broken stage and what reads it, as a new version of its code would, and nothing upstream or beside it', () => {
    const healthy = new VariantKeyer(pipelines['rb-sql'], variant, ctx).itemStages('dev-1');
    const faulty = new VariantKeyer(pipelines['rb-sql'], variant, { ...ctx, faults: { tableRetriever: 'wrong-tables' } }).itemStages('dev-1');
    const keyOf = (stages: typeof healthy, stage: string) => stages.find((s) => s.stage === stage)!;
    expect(keyOf(faulty, 'rb-sql.tables').params[TEST_FAULT_PARAM]).toBe('wrong-tables');
    expect(keyOf(healthy, 'rb-sql.tables').params).not.toHaveProperty(TEST_FAULT_PARAM);
    expect(keyOf(faulty, 'rb-sql.tables').key).not.toBe(keyOf(healthy, 'rb-sql.tables').key);
    expect(keyOf(faulty, 'rb-sql.columns').key).not.toBe(keyOf(healthy, 'rb-sql.columns').key); // reads the tables
    expect(keyOf(faulty, 'gold').key).toBe(keyOf(healthy, 'gold').key);
    expect(keyOf(faulty, 'rb-sql.columns').params).not.toHaveProperty(TEST_FAULT_PARAM);
    // Without a switch the keys are those of a planner that has never heard of faults.
    expect(new VariantKeyer(pipelines['rb-sql'], variant, { ...ctx, faults: {} }).itemStages('dev-1')).toEqual(healthy);
  });
});
