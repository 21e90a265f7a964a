interface Waiting<T, R> { item: T; resolve: (r: R) => void; reject: (e: unknown) => void }

/**
 * Runs submitted items through `flush` in batches, as a database's group commit does: an item submitted while no
 * batch is in flight goes at once (with whatever else arrives in the same tick); items submitted while one is in
 * flight wait for it and then go together. So an idle worker adds no delay, and a busy one pays one round trip per
 * batch instead of one per item. A batch that fails is tried again item by item, so one bad item fails only itself.
 */
export class GroupCommit<T, R> {
  private waiting: Waiting<T, R>[] = [];
  private flushing = false;

  constructor(private readonly flush: (items: T[]) => Promise<R[]>, private readonly maxBatch = 200) {}

  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      if (!this.flushing) {
        this.flushing = true;
        queueMicrotask(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    while (this.waiting.length > 0) await this.settle(this.waiting.splice(0, this.maxBatch));
    this.flushing = false;
  }

  private async settle(batch: Waiting<T, R>[]): Promise<void> {
    try {
      const results = await this.flush(batch.map((w) => w.item));
      batch.forEach((w, i) => w.resolve(results[i]));
    } catch (e) {
      if (batch.length === 1) return batch[0].reject(e);
      for (const w of batch) await this.settle([w]);
    }
  }
}
