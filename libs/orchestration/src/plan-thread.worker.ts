// Entry of the planning thread (plan-thread.ts): plans and creates runs with a core of its own.
import { parentPort, workerData } from 'node:worker_threads';
import { SweepConfigError } from '@sqlsweep/contracts';
import { OrchestratorCore, type CoreSettings } from './core';
import type { PlanThreadError, PlanThreadMessage, PlanThreadReply } from './plan-thread';
import { planAndCreateRun } from './run-creation';

function serialize(e: unknown): PlanThreadError {
  if (e instanceof SweepConfigError) return { name: e.name, message: e.message, config: { source: e.source, path: e.path, reason: e.reason } };
  const error = e instanceof Error ? e : new Error(String(e));
  return { name: error.name, message: error.message };
}

const port = parentPort;
if (!port) throw new Error('plan-thread.worker must run in a worker thread');
const core = new OrchestratorCore(workerData as CoreSettings);
port.postMessage({ ready: true } satisfies PlanThreadReply);
port.on('message', (message: PlanThreadMessage) => {
  if ('op' in message) {
    void core.close().finally(() => port.close());
    return;
  }
  planAndCreateRun(core, message.request).then(
    (created) => port.postMessage({ id: message.id, created } satisfies PlanThreadReply),
    (e: unknown) => port.postMessage({ id: message.id, error: serialize(e) } satisfies PlanThreadReply),
  );
});
