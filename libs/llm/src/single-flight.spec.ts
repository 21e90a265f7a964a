import { join } from 'node:path';
import { loadModelCatalog } from './model-catalog';
import type { ResolvedModel } from './model-resolution';
import type { CachedLlmResponse, CacheEntry, ResponseCacheStore } from './response-cache';
import { SingleFlightCalls } from './single-flight';
import type { LlmRequest, LlmResponse } from './types';

const catalog = loadModelCatalog(join(__dirname, '..', '..', '..', 'configs', 'models.yaml'));
const model: ResolvedModel = { name: 'sim-strong', config: catalog.models['sim-strong']!, providerName: 'llm-sim', providerConfig: catalog.providers['llm-sim']! };
const request = (q: string): LlmRequest => ({ model: 'sim-strong', messages: [{ role: 'user', content: q }], temperature: 0, sampleIndex: 0, templateVersion: 'v1' });
const paid = (output: string): LlmResponse => ({ output, usage: { inputTokens: 10, cachedInputTokens: 0, outputTokens: 2 }, costUsd: 0.5, latencyMs: 1, cached: false, simulated: true, provider: 'llm-sim', model: 'sim-strong' });

/**
 * A response cache store in memory with claims (one map each), logging every call it answers: each call stands for one
 * round trip to a real store. `without` leaves out optional methods, as a store that lacks them.
 */
class MemoryStore implements ResponseCacheStore {
  readonly responses = new Map<string, CachedLlmResponse>();
  readonly claims = new Map<string, { owner: string; expiresAt: number }>();
  readonly calls: string[] = [];
  /** Errors the next putAndRelease calls throw, in order. */
  readonly putAndReleaseErrors: Error[] = [];
  /** Run inside lookupOrClaim after its claim, before its second look-up (another process storing just then). */
  afterClaim?: () => void;

  constructor(without: Array<'lookupOrClaim' | 'putAndRelease'> = []) {
    for (const name of without) Object.defineProperty(this, name, { value: undefined });
  }

  async get(key: string): Promise<CachedLlmResponse | undefined> {
    this.calls.push('get');
    return this.responses.get(key);
  }
  async put(entry: CacheEntry): Promise<void> {
    this.calls.push('put');
    this.store(entry);
  }
  async claim(key: string, owner: string, ttlMs: number): Promise<boolean> {
    this.calls.push('claim');
    return this.take(key, owner, ttlMs);
  }
  async renew(keys: string[], owner: string, ttlMs: number): Promise<string[]> {
    return keys.filter((k) => this.take(k, owner, ttlMs));
  }
  async release(key: string, owner: string): Promise<void> {
    this.calls.push('release');
    if (this.claims.get(key)?.owner === owner) this.claims.delete(key);
  }
  async lookupOrClaim(key: string, owner: string, ttlMs: number): Promise<{ hit?: CachedLlmResponse; claimed: boolean }> {
    this.calls.push('lookupOrClaim');
    const claimed = !this.responses.has(key) && this.take(key, owner, ttlMs);
    if (claimed) this.afterClaim?.();
    const hit = this.responses.get(key);
    return { claimed, ...(hit ? { hit } : {}) };
  }
  async putAndRelease(entry: CacheEntry, owner: string): Promise<void> {
    this.calls.push('putAndRelease');
    const err = this.putAndReleaseErrors.shift();
    if (err) throw err;
    this.store(entry);
    if (this.claims.get(entry.key)?.owner === owner) this.claims.delete(entry.key);
  }

  store(entry: CacheEntry): void {
    if (!this.responses.has(entry.key)) this.responses.set(entry.key, entry.response);
  }
  private take(key: string, owner: string, ttlMs: number): boolean {
    const c = this.claims.get(key);
    if (c && c.owner !== owner && c.expiresAt > Date.now()) return false;
    this.claims.set(key, { owner, expiresAt: Date.now() + ttlMs });
    return true;
  }
}

describe('SingleFlightCalls with a claiming cache store', () => {
  const flights: SingleFlightCalls[] = [];
  afterEach(async () => {
    await Promise.all(flights.splice(0).map((f) => f.close(0)));
  });

  /** A client's calls (one per process), paying through `call`; `paidFor` lists the outputs it paid for. */
  function calls(cache: ResponseCacheStore, call: (req: LlmRequest) => Promise<LlmResponse> = async (req) => paid(`answer: ${req.messages[0]!.content}`)) {
    const paidFor: string[] = [];
    const f = new SingleFlightCalls({
      cache,
      call: async (_m, req) => {
        const r = await call(req);
        paidFor.push(r.output);
        return r;
      },
      log: () => undefined,
      keptRetry: { firstMs: 10, maxMs: 20 },
    });
    flights.push(f);
    return { f, paidFor, complete: (q: string) => f.complete(model, request(q), 100) };
  }

  it('a miss takes two store round trips (look-up-or-claim, store-and-release) and a hit one, which writes nothing', async () => {
    const store = new MemoryStore();
    const a = calls(store);
    // Stored: asked again, the cache answers it for nothing (the stage result may then be committed asynchronously).
    expect(await a.complete('q1')).toMatchObject({ cached: false, stored: true });
    expect(store.calls).toEqual(['lookupOrClaim', 'putAndRelease']);
    expect(store.claims.size).toBe(0);

    store.calls.length = 0;
    const b = calls(store);
    const hit = await b.complete('q1');
    expect(hit).toMatchObject({ output: 'answer: q1', cached: true, stored: true, costUsd: 0, answerCostUsd: 0.5 });
    expect(store.calls).toEqual(['lookupOrClaim']);
    expect(store.claims.size).toBe(0);
    expect([...a.paidFor, ...b.paidFor]).toEqual(['answer: q1']);
  });

  it('does not pay when the response lands between the miss and the claim, and gives the claim back', async () => {
    const store = new MemoryStore();
    store.afterClaim = () => {
      // The previous owner stores its response just as our claim takes hold.
      const [key] = [...store.claims.keys()];
      store.responses.set(key!, { output: 'paid by another process', usage: { inputTokens: 10, cachedInputTokens: 0, outputTokens: 2 }, costUsd: 0.5, latencyMs: 1, simulated: true, provider: 'llm-sim', model: 'sim-strong' });
    };
    const a = calls(store);
    expect(await a.complete('q2')).toMatchObject({ output: 'paid by another process', cached: true });
    expect(a.paidFor).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(store.calls).toEqual(['lookupOrClaim', 'release']);
    expect(store.claims.size).toBe(0);
  });

  it("waits for another process's live claim, polling in one round trip each, and takes its stored answer", async () => {
    const store = new MemoryStore();
    let finish!: () => void;
    const a = calls(store, () => new Promise<LlmResponse>((resolve) => (finish = () => resolve(paid('from a')))));
    const b = calls(store);
    const first = a.complete('q3');
    await new Promise((r) => setTimeout(r, 10));
    const second = b.complete('q3');
    await new Promise((r) => setTimeout(r, 250));
    finish();
    expect((await first).output).toBe('from a');
    expect(await second).toMatchObject({ output: 'from a', cached: true });
    expect([...a.paidFor, ...b.paidFor]).toEqual(['from a']);
    // a's claim and store, b's polls (at least its first and the one that finds the answer): nothing else.
    expect(store.calls.filter((c) => c === 'lookupOrClaim').length).toBeGreaterThanOrEqual(3);
    expect(store.calls.filter((c) => c !== 'lookupOrClaim')).toEqual(['putAndRelease']);
  });

  it('releases the claim at once when the paid call fails', async () => {
    const store = new MemoryStore();
    const a = calls(store, async () => {
      throw new Error('provider down');
    });
    await expect(a.complete('q4')).rejects.toThrow('provider down');
    expect(store.calls).toEqual(['lookupOrClaim', 'release']);
    expect(store.claims.size).toBe(0);
  });

  it('keeps the response and its claim while the store is unreachable, and releases the claim once it is stored', async () => {
    const store = new MemoryStore();
    store.putAndReleaseErrors.push(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED', syscall: 'connect' }));
    const a = calls(store);
    const answer = await a.complete('q5');
    expect(answer.output).toBe('answer: q5');
    expect(answer.stored).toBeUndefined(); // held in memory only: its stage result must be committed durably
    expect(a.f.kept.size).toBe(1);
    expect(store.claims.size).toBe(1);
    expect(a.f.claims?.holds([...store.claims.keys()][0]!)).toBe(true);
    const deadline = Date.now() + 2_000;
    while (a.f.kept.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(a.f.kept.size).toBe(0);
    expect(store.calls).toEqual(['lookupOrClaim', 'putAndRelease', 'put', 'release']);
    expect(store.claims.size).toBe(0);
    expect(store.responses.size).toBe(1);
  });

  it('releases the claim when the store refuses the response', async () => {
    const store = new MemoryStore();
    store.putAndReleaseErrors.push(Object.assign(new Error('violates check constraint'), { code: '23514', severity: 'ERROR' }));
    const a = calls(store);
    const answer = await a.complete('q6');
    expect(answer.output).toBe('answer: q6');
    expect(answer.stored).toBeUndefined();
    expect(a.f.kept.size).toBe(0);
    expect(store.calls).toEqual(['lookupOrClaim', 'putAndRelease', 'release']);
    expect(store.claims.size).toBe(0);
  });

  it('falls back to separate calls with a store that lacks the one-round-trip methods', async () => {
    const store = new MemoryStore(['lookupOrClaim', 'putAndRelease']);
    const a = calls(store);
    expect((await a.complete('q7')).stored).toBe(true);
    expect(store.calls).toEqual(['get', 'claim', 'get', 'put', 'release']);
    store.calls.length = 0;
    expect(await calls(store).complete('q7')).toMatchObject({ cached: true, stored: true });
    expect(store.calls).toEqual(['get']);
    expect(store.claims.size).toBe(0);
  });
});
