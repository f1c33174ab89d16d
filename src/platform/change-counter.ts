/**
 * A version number per store that the services owning some data bump whenever they change it (the
 * catalogue: products, variants, stock). Caches of things derived from that data put the version in
 * their keys, so a change made through this process is never served from a cache afterwards; one
 * made by another process is not seen here, and such caches bound it with their TTL.
 */
export class ChangeCounter {
  private readonly versions = new Map<string, number>();
  /** Bumped when the map is emptied, so versions never repeat for a store. */
  private epoch = 0;

  /** Bounds the memory: past this many stores the map starts afresh under a new epoch. */
  constructor(private readonly maxStores = 100_000) {}

  /** The store's current version: an opaque string, different after every bump. */
  version(storeId: string): string {
    return `${this.epoch}.${this.versions.get(storeId) ?? 0}`;
  }

  bump(storeId: string): void {
    if (!this.versions.has(storeId) && this.versions.size >= this.maxStores) {
      this.versions.clear();
      this.epoch++;
    }
    this.versions.set(storeId, (this.versions.get(storeId) ?? 0) + 1);
  }
}
