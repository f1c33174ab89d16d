/**
 * Gathers the loads asked for in one turn of the event loop and answers them with one call of
 * `loadAll` (at the next setImmediate, once every job started in that turn has asked): N reads that
 * arrive together cost one round of statements instead of N. `loadAll` answers, for the keys given
 * (distinct by `keyOf`), a map from each key's `keyOf` to its value; a key it leaves out answers
 * undefined. When `loadAll` throws, every load of that batch rejects with its error.
 */
export function batchLoader<K, V>(options: {
  keyOf: (key: K) => string;
  loadAll: (keys: K[]) => Promise<Map<string, V>>;
  /** At most this many keys per call of `loadAll` (more go in the next). Default 100. */
  maxBatch?: number;
}): (key: K) => Promise<V | undefined> {
  const { keyOf, loadAll } = options;
  const maxBatch = options.maxBatch ?? 100;
  type Waiter = { resolve: (value: V | undefined) => void; reject: (error: unknown) => void };
  let pending = new Map<string, { key: K; waiters: Waiter[] }>();
  let scheduled = false;

  async function run(batch: Map<string, { key: K; waiters: Waiter[] }>) {
    try {
      const found = await loadAll([...batch.values()].map((entry) => entry.key));
      for (const [id, entry] of batch) for (const w of entry.waiters) w.resolve(found.get(id));
    } catch (error) {
      for (const entry of batch.values()) for (const w of entry.waiters) w.reject(error);
    }
  }

  function flush() {
    scheduled = false;
    const all = [...pending];
    pending = new Map();
    for (let start = 0; start < all.length; start += maxBatch)
      void run(new Map(all.slice(start, start + maxBatch)));
  }

  return (key) =>
    new Promise<V | undefined>((resolve, reject) => {
      const id = keyOf(key);
      const entry = pending.get(id) ?? { key, waiters: [] };
      entry.waiters.push({ resolve, reject });
      pending.set(id, entry);
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    });
}
