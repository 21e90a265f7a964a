import { UnrecoverableError } from '@sqlsweep/queue';
import { assertPlannedFault } from './planned-fault';

const healthyPlan = { stage: 'rb-sql.tables', params: { theta: 4 } };
const faultyPlan = { stage: 'rb-sql.tables', params: { theta: 4, testFault: 'wrong-tables' } };
const faulty = { tableRetriever: 'wrong-tables' } as const;

describe('assertPlannedFault', () => {
  it('lets a job through when the worker runs the code the planner keyed it for', () => {
    expect(() => assertPlannedFault(healthyPlan, undefined)).not.toThrow();
    expect(() => assertPlannedFault(healthyPlan, {})).not.toThrow();
    expect(() => assertPlannedFault(faultyPlan, faulty)).not.toThrow();
    // The switch breaks one stage: the others run anywhere.
    expect(() => assertPlannedFault({ stage: 'rb-sql.columns', params: { mu: 2 } }, faulty)).not.toThrow();
  });

  it('refuses for good a broken worker on a healthy plan, and a healthy worker on a broken plan', () => {
    expect(() => assertPlannedFault(healthyPlan, faulty)).toThrow(UnrecoverableError);
    expect(() => assertPlannedFault(healthyPlan, faulty))
      .toThrow('stage rb-sql.tables was planned with test fault off but this worker has it "wrong-tables"');
    expect(() => assertPlannedFault(faultyPlan, undefined))
      .toThrow('stage rb-sql.tables was planned with test fault "wrong-tables" but this worker has it off');
  });
});
