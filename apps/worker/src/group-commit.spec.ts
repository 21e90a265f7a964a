import { GroupCommit } from './group-commit';

/** A flush that records its batches and holds each one until the test releases it. */
function heldFlush(fail: (item: number) => boolean = () => false) {
  const batches: number[][] = [];
  const releases: (() => void)[] = [];
  const flush = async (items: number[]) => {
    batches.push(items);
    await new Promise<void>((r) => releases.push(r));
    const bad = items.find(fail);
    if (bad !== undefined) throw new Error(`item ${bad} is bad`);
    return items.map((i) => i * 10);
  };
  const releaseAll = async () => {
    while (releases.length) {
      releases.shift()!();
      await new Promise((r) => setImmediate(r));
    }
  };
  return { batches, flush, releaseAll };
}

describe('GroupCommit', () => {
  it('sends what arrives in one tick together, and what arrives during a flush as the next batch', async () => {
    const h = heldFlush();
    const group = new GroupCommit(h.flush);
    const first = [group.submit(1), group.submit(2)];
    await new Promise((r) => setImmediate(r));
    const second = [3, 4, 5].map((i) => group.submit(i));
    expect(h.batches).toEqual([[1, 2]]); // 3, 4 and 5 wait for the batch in flight
    await h.releaseAll();
    expect(await Promise.all([...first, ...second])).toEqual([10, 20, 30, 40, 50]);
    expect(h.batches).toEqual([[1, 2], [3, 4, 5]]);
  });

  it('goes at once when idle, and again after a batch ends', async () => {
    const h = heldFlush();
    const group = new GroupCommit(h.flush);
    const one = group.submit(1);
    await new Promise((r) => setImmediate(r));
    await h.releaseAll();
    expect(await one).toBe(10);
    const two = group.submit(2);
    await new Promise((r) => setImmediate(r));
    await h.releaseAll();
    expect(await two).toBe(20);
    expect(h.batches).toEqual([[1], [2]]);
  });

  it('caps a batch at maxBatch', async () => {
    const h = heldFlush();
    const group = new GroupCommit(h.flush, 2);
    const all = [1, 2, 3, 4, 5].map((i) => group.submit(i));
    await new Promise((r) => setImmediate(r));
    await h.releaseAll();
    expect(await Promise.all(all)).toEqual([10, 20, 30, 40, 50]);
    expect(h.batches).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('retries a failed batch item by item, so only the bad item fails', async () => {
    const h = heldFlush((i) => i === 2);
    const group = new GroupCommit(h.flush);
    const all = [1, 2, 3].map((i) => group.submit(i).catch((e: Error) => e.message));
    await new Promise((r) => setImmediate(r));
    await h.releaseAll();
    expect(await Promise.all(all)).toEqual([10, 'item 2 is bad', 30]);
    expect(h.batches).toEqual([[1, 2, 3], [1], [2], [3]]);
  });
});
