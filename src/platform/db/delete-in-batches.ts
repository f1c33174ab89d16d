/**
 * Deletes with a series of bounded statements, each its own short transaction, so that no single
 * statement holds many row locks or runs long: `deleteBatch(limit)` removes at most `limit` rows and
 * says how many it removed; it is called again while it removes a full batch and `signal` is not
 * aborted. Returns the rows removed and the statements run.
 */
export async function deleteInBatches(
  deleteBatch: (limit: number) => Promise<number>,
  options: { batchSize: number; signal?: AbortSignal },
): Promise<{ deleted: number; batches: number }> {
  let deleted = 0;
  let batches = 0;
  for (;;) {
    if (options.signal?.aborted) break;
    const removed = await deleteBatch(options.batchSize);
    batches++;
    deleted += removed;
    if (removed < options.batchSize) break;
  }
  return { deleted, batches };
}
