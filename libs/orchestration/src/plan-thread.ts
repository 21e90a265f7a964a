import type { Worker } from 'node:worker_threads';
import { spawnModuleWorker } from '@sqlsweep/config';
import { SweepConfigError } from '@sqlsweep/contracts';
import type { CoreSettings } from './core';
import type { CreatedRun, RunCreator, RunRequest } from './run-creation';

/** An error as it crosses the thread boundary; a SweepConfigError keeps its parts, so the API still answers 400. */
export interface PlanThreadError { name: string; message: string; config?: { source: string; path: string; reason: string } }
export type PlanThreadMessage = { id: number; request: RunRequest } | { op: 'close' };
export type PlanThreadReply = { id: number; created: CreatedRun } | { id: number; error: PlanThreadError } | { ready: true };

/**
 * Plans runs in a worker thread with its own core (database pool, Redis connection), so that expanding, keying,
 * estimating and storing a large plan never holds the caller's event loop: the API keeps answering (health checks,
 * the dashboard, advancing) while a 200,000-stage plan is made. One thread serves every request, concurrently; it
 * is started again after it dies (out of memory, say), and the requests it held fail with a message saying so.
 */
export class PlanThread {
  private worker?: Worker;
  private ready?: Promise<void>;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (c: CreatedRun) => void; reject: (e: Error) => void }>();

  constructor(private readonly settings: CoreSettings) {}

  /** Starts the thread now and resolves once it has loaded, so that the first request does not wait for it. */
  async start(): Promise<void> {
    this.thread();
    await this.ready;
  }

  readonly createRun: RunCreator = (request) => new Promise<CreatedRun>((resolve, reject) => {
    const id = this.nextId++;
    this.pending.set(id, { resolve, reject });
    this.thread().postMessage({ id, request } satisfies PlanThreadMessage);
  });

  async close(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage({ op: 'close' } satisfies PlanThreadMessage);
    const timer = setTimeout(() => void worker.terminate(), 10_000);
    await exited;
    clearTimeout(timer);
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const worker = spawnModuleWorker(__dirname, 'plan-thread.worker', this.settings);
    this.ready = new Promise<void>((resolve, reject) => {
      worker.on('message', (reply: PlanThreadReply) => 'ready' in reply && resolve());
      worker.once('exit', (code) => reject(new Error(`the planning thread exited (code ${code}) while starting`)));
    });
    this.ready.catch(() => undefined); // a request sent meanwhile fails through failAll
    worker.on('message', (reply: PlanThreadReply) => {
      if ('ready' in reply) return;
      const waiting = this.pending.get(reply.id);
      if (!waiting) return;
      this.pending.delete(reply.id);
      if ('created' in reply) waiting.resolve(reply.created);
      else waiting.reject(revive(reply.error));
    });
    worker.on('error', (e) => this.failAll(new Error(`the planning thread failed: ${e.message}`)));
    worker.on('exit', (code) => {
      if (this.worker === worker) this.worker = undefined;
      this.failAll(new Error(`the planning thread exited (code ${code}) before answering; try again`));
    });
    this.worker = worker;
    return worker;
  }

  private failAll(error: Error): void {
    for (const { reject } of this.pending.values()) reject(error);
    this.pending.clear();
  }
}

function revive(e: PlanThreadError): Error {
  if (e.config) return new SweepConfigError(e.config.source, e.config.path, e.config.reason);
  return Object.assign(new Error(e.message), { name: e.name });
}
