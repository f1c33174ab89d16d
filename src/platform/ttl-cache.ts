interface Entry<V> {
  value: Promise<V>;
  expiresAt: number;
  /** Loaded successfully: only then may it be served while its successor loads. */
  settled: boolean;
  refreshing: boolean;
}

export interface TtlCacheOptions {
  /** How long a loaded value is served, counted from the start of its load; 0 disables caching. */
  ttlMs: number;
  /** Past this many keys the oldest entry is evicted, so callers cannot grow it without bound. */
  maxEntries: number;
  /** The clock, in ms (tests may pass their own). */
  now?: () => number;
  /**
   * This long before an entry expires, the first request to ask for it starts its next load in the
   * background and is answered from the entry, which the new value replaces once loaded: a key read
   * all the time never makes a request wait for a load (default 0: loads only at expiry).
   */
  refreshAheadMs?: number;
}

/**
 * A small in-process cache of values that are expensive to load, each kept for a short TTL.
 *
 * It holds the promise rather than the value, so concurrent misses on a key share one load: when an
 * entry expires under load, one query refreshes it instead of one per request in flight. A failed
 * load is forgotten at once, so the next caller retries rather than getting the error for a TTL.
 * Entries live in a Map, which iterates in insertion order, and a refreshed key is re-inserted:
 * the first key is always the oldest, and evicting it is O(1).
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;
  private readonly refreshAheadMs: number;

  constructor(options: TtlCacheOptions) {
    this.ttlMs = options.ttlMs;
    this.refreshAheadMs = options.refreshAheadMs ?? 0;
    this.maxEntries = options.maxEntries;
    // Read Date.now at each call (not once here), so a test that replaces it is obeyed.
    this.now = options.now ?? (() => Date.now());
  }

  get size(): number {
    return this.entries.size;
  }

  /** Forgets every entry (the owner changed what they describe). */
  clear(): void {
    this.entries.clear();
  }

  /** The value cached for `key` if it is younger than the TTL; otherwise `load()`'s, cached. */
  getOrLoad(key: string, load: () => Promise<V>): Promise<V> {
    const now = this.now();
    const cached = this.entries.get(key);
    if (cached && cached.expiresAt > now) {
      if (cached.settled && !cached.refreshing && cached.expiresAt - now <= this.refreshAheadMs) {
        cached.refreshing = true;
        const next = this.start(key, load, now, false);
        next.value.then(
          () => {
            if (this.entries.get(key) === cached) this.file(key, next);
          },
          () => {
            cached.refreshing = false;
          },
        );
      }
      return cached.value;
    }
    if (cached) this.entries.delete(key);
    return this.start(key, load, now, true).value;
  }

  /** Starts a load; files it at once when `file`, else when it has loaded (a refresh ahead). */
  private start(key: string, load: () => Promise<V>, now: number, file: boolean): Entry<V> {
    const value = load();
    // Counted from the start of the load, so a value is never served more than a TTL after the
    // moment it describes.
    const entry: Entry<V> = { value, expiresAt: now + this.ttlMs, settled: false, refreshing: false };
    value.then(
      () => {
        entry.settled = true;
      },
      () => {
        if (this.entries.get(key) === entry) this.entries.delete(key);
      },
    );
    if (file) this.file(key, entry);
    return entry;
  }

  private file(key: string, entry: Entry<V>): void {
    forgetExpired(this.entries, this.now());
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }
}

/**
 * Forgets the entries past their expiry from the oldest end of a Map kept in filing order (stopping
 * at the first live one; an entry filed out of order goes when it reaches the front). An expired
 * entry is never served again: kept until `maxEntries` newer ones push it out, a bound of thousands
 * fills over minutes when keys keep changing (a catalogue version in the key moves with every sale),
 * which the soak saw as a steady rise of heap and RSS (docs/performance.md, "Soak").
 */
export function forgetExpired(entries: Map<string, { expiresAt: number }>, at: number): void {
  for (const [key, entry] of entries) {
    if (entry.expiresAt > at) return;
    entries.delete(key);
  }
}
