import { afterCommit } from './db/transaction.js';

/**
 * A version number per store that the services owning some data bump whenever they change it (the
 * catalogue: products, variants, stock). Caches of things derived from that data put the version in
 * their keys, so a change is never served from a cache once it has committed.
 *
 * A bump inside a transaction counts twice: at once (so nothing cached before the change is served
 * while it commits) and again after the commit (so nothing cached from a read that ran between the
 * first bump and the commit, and so still saw the old data, is served after it). The committed bump
 * is also announced to `onCommittedBump`: the change feed (change-feed.ts) sends it to the other
 * processes, which apply it with `applyRemote`.
 */
export class ChangeCounter {
  private readonly versions = new Map<string, number>();
  /** Bumped when the map is emptied, so versions never repeat for a store. */
  private epoch = 0;
  /** Set by the change feed: told of every committed bump of this process. */
  onCommittedBump?: (storeId: string) => void;

  /** Bounds the memory: past this many stores the map starts afresh under a new epoch. */
  constructor(private readonly maxStores = 100_000) {}

  /** The store's current version: an opaque string, different after every bump. */
  version(storeId: string): string {
    return `${this.epoch}.${this.versions.get(storeId) ?? 0}`;
  }

  bump(storeId: string): void {
    this.increment(storeId);
    afterCommit(() => {
      this.increment(storeId);
      this.onCommittedBump?.(storeId);
    });
  }

  /** A change another process committed. */
  applyRemote(storeId: string): void {
    this.increment(storeId);
  }

  /** Every store's version changes: for when changes may have been missed (the feed was down). */
  reset(): void {
    this.versions.clear();
    this.epoch++;
  }

  private increment(storeId: string): void {
    if (!this.versions.has(storeId) && this.versions.size >= this.maxStores) this.reset();
    this.versions.set(storeId, (this.versions.get(storeId) ?? 0) + 1);
  }
}
