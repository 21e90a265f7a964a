import type { Worker } from 'node:worker_threads';
import type { RetrievalError } from './errors';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** How a worker's failures read to callers; each names the worker (`encoder worker`, `MaxSim scorer`). */
export interface WorkerRpcErrors<Failure> {
  /** the worker answered a request with `ok: false` */
  failed(response: Failure): RetrievalError;
  /** the worker threw outside a request */
  crashed(error: Error): RetrievalError;
  /** the worker exited: every waiting request gets this */
  exited(code: number): RetrievalError;
  /** a request after the worker exited or was closed */
  closed(): RetrievalError;
}

/**
 * Requests to a worker thread and their answers, matched by id: the worker answers each `{ id, ... }` request with
 * `{ id, ok: true, ... }` or `{ id, ok: false, ... }`. A crash or an exit rejects every request still waiting.
 */
export class WorkerRpc<Request extends { id: number }, Response extends { id: number; ok: boolean }> {
  private readonly pending = new Map<number, { resolve: (r: Extract<Response, { ok: true }>) => void; reject: (e: Error) => void }>();
  private nextId = 1;
  private closed = false;

  constructor(
    private readonly worker: Worker,
    private readonly errors: WorkerRpcErrors<Extract<Response, { ok: false }>>,
  ) {
    worker.on('message', (response: Response) => {
      const waiter = this.pending.get(response.id);
      if (!waiter) return;
      this.pending.delete(response.id);
      if (response.ok) waiter.resolve(response as Extract<Response, { ok: true }>);
      else waiter.reject(errors.failed(response as Extract<Response, { ok: false }>));
    });
    worker.on('error', (error) => this.failAll(errors.crashed(error)));
    worker.on('exit', (code) => {
      this.closed = true;
      this.failAll(errors.exited(code));
    });
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Sends a request (an id is added) and resolves with the worker's successful answer; `transfer` moves buffers. */
  send(request: DistributiveOmit<Request, 'id'>, transfer: ArrayBuffer[] = []): Promise<Extract<Response, { ok: true }>> {
    if (this.closed) return Promise.reject(this.errors.closed());
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...request, id }, transfer);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.worker.terminate();
  }

  private failAll(error: Error): void {
    for (const p of this.pending.values()) p.reject(error);
    this.pending.clear();
  }
}
