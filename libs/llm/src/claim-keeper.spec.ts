import { ClaimKeeper, type ClaimStore } from './claim-keeper';

/**
 * A claim table as LlmCacheRepository keeps it (claim when free or ours, renew puts back missing claims, release by
 * owner), in memory, whose renewals can be held back to land after a release, as they can over two connections.
 */
class ClaimTable implements ClaimStore {
  readonly owners = new Map<string, string>();
  holdRenewals?: Promise<void>;

  async claim(key: string, owner: string): Promise<boolean> {
    const current = this.owners.get(key);
    if (current !== undefined && current !== owner) return false;
    this.owners.set(key, owner);
    return true;
  }

  async renew(keys: string[], owner: string): Promise<string[]> {
    await this.holdRenewals;
    return keys.filter((k) => {
      const current = this.owners.get(k);
      if (current !== undefined && current !== owner) return false;
      this.owners.set(k, owner);
      return true;
    });
  }

  async release(key: string, owner: string): Promise<void> {
    if (this.owners.get(key) === owner) this.owners.delete(key);
  }
}

describe('ClaimKeeper', () => {
  it('deletes a claim that a renewal already on its way put back after the claim was released', async () => {
    const table = new ClaimTable();
    const keeper = new ClaimKeeper(table, { ttlMs: 1_000, renewEveryMs: 20 }, () => undefined, 'me');
    let letRenewalsThrough!: () => void;
    table.holdRenewals = new Promise((resolve) => { letRenewalsThrough = resolve; });
    expect(await keeper.claim('k')).toBe(true);
    await new Promise((r) => setTimeout(r, 60)); // a renewal has started and waits
    await keeper.releaseWith('k', async (owner) => table.release('k', owner));
    expect(table.owners.has('k')).toBe(false);
    letRenewalsThrough();
    await new Promise((r) => setTimeout(r, 60));
    expect(table.owners.has('k')).toBe(false);
    expect(keeper.holds('k')).toBe(false);
    keeper.close();
  });

  it('keeps renewing a claim still held, and leaves another owner\'s claim alone', async () => {
    const table = new ClaimTable();
    table.owners.set('theirs', 'them');
    const keeper = new ClaimKeeper(table, { ttlMs: 1_000, renewEveryMs: 20 }, () => undefined, 'me');
    expect(await keeper.claim('mine')).toBe(true);
    expect(await keeper.claim('theirs')).toBe(false);
    table.owners.delete('mine'); // lost (in a crash's last fraction of a second): the next renewal puts it back
    await new Promise((r) => setTimeout(r, 80));
    expect(table.owners.get('mine')).toBe('me');
    expect(table.owners.get('theirs')).toBe('them');
    keeper.close();
  });
});
