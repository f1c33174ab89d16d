import type { Logger } from 'pino';
import type { Db } from '../../platform/db/database.js';
import type { JobKind } from '../../platform/jobs.js';
import type { MediaStorage } from '../media/index.js';
import { deletionOrder } from './deletion-order.js';
import * as repo from './store-deletion.repository.js';

/** A worker holds a store this long past its last batch; a worker killed mid-way loses it after. */
export const DELETION_LEASE_MS = 30_000;
/** Rows per statement: each batch is one short transaction, however large the store. */
const DELETION_BATCH = 1000;
/** Our own media objects are named by their content (media.pipeline's mediaKeyFor). */
const MEDIA_KEY = /(images\/[0-9a-f]{64}\.webp)$/;

export interface StoreDeletionOptions {
  db: Db;
  storage: MediaStorage;
  logger: Logger;
  leaseMs?: number;
  batchSize?: number;
  /** Aborted when the worker stops: the deletion stops after its batch and hands its lease back. */
  signal?: AbortSignal;
}

type StoreToDelete = { id: string; slug: string };

class LeaseLost extends Error {}

/**
 * The `store_deletion` job (contract §14): a store marked `deleting` is claimed with a lease
 * (SKIP LOCKED), and its rows removed table by table in bounded batches, children first (the
 * schema's own list of tables with store_id, ordered by its foreign keys), its media objects with
 * their rows (unless another store shows the same image), then the store row. Every batch renews
 * the lease; a worker killed mid-way leaves the rest to the next claim once the lease has run out,
 * which starts again from the first table (those already empty cost one statement each).
 */
export function storeDeletionJobs(
  options: StoreDeletionOptions,
): JobKind<StoreToDelete, Record<string, number>> {
  const { db, storage, logger } = options;
  const leaseMs = options.leaseMs ?? DELETION_LEASE_MS;
  const batchSize = options.batchSize ?? DELETION_BATCH;

  /** Runs `batch` until it removes fewer than a full batch, renewing the lease after each. */
  async function inBatches(store: StoreToDelete, batch: (limit: number) => Promise<number>) {
    let total = 0;
    for (;;) {
      if (options.signal?.aborted) throw new Error('the worker is stopping');
      const removed = await batch(batchSize);
      total += removed;
      if (!(await repo.extendDeletionLease(db, store.id, leaseMs))) throw new LeaseLost(store.id);
      if (removed < batchSize) return total;
    }
  }

  /** Media objects first (an object is deleted again harmlessly after a crash), then their rows. */
  async function deleteMedia(store: StoreToDelete): Promise<number> {
    return inBatches(store, async (limit) => {
      const rows = await repo.storeMediaBatch(db, store.id, limit);
      const shared = await repo.urlsUsedByOthers(
        db,
        store.id,
        rows.map((row) => row.url),
      );
      const keys = new Set<string>();
      for (const { url } of rows) {
        const key = MEDIA_KEY.exec(url)?.[1];
        if (key && !shared.has(url) && storage.publicUrl(key) === url) keys.add(key);
      }
      for (const key of keys) await storage.delete(key);
      await repo.deleteMediaRows(
        db,
        store.id,
        rows.map((row) => row.id),
      );
      return rows.length;
    });
  }

  async function deleteStore(store: StoreToDelete): Promise<Record<string, number>> {
    const steps = deletionOrder(await repo.tablesWithStoreId(db), await repo.foreignKeys(db));
    const deleted: Record<string, number> = {};
    for (const { table, selfReferences } of steps) {
      for (const column of selfReferences)
        await inBatches(store, (limit) => repo.clearSelfReference(db, table, column, store.id, limit));
      const removed =
        (table === 'product_media' ? await deleteMedia(store) : 0) +
        (await inBatches(store, (limit) => repo.deleteStoreRows(db, table, store.id, limit)));
      if (removed > 0) deleted[table] = removed;
    }
    if (await repo.deleteStoreRow(db, store.id)) deleted.stores = 1;
    return deleted;
  }

  return {
    name: 'store_deletion',
    channel: repo.STORE_DELETION_CHANNEL,
    concurrency: 1,
    batchSize: 1,
    claim: () => repo.claimStoreToDelete(db, leaseMs),
    perform: deleteStore,
    async record(outcomes) {
      for (const outcome of outcomes) {
        const store = { id: outcome.job.id, slug: outcome.job.slug };
        if (outcome.ok) logger.info({ store, deleted: outcome.result }, 'store deleted');
        else if (outcome.error instanceof LeaseLost)
          logger.warn({ store }, 'store deletion: another worker took the store over');
        else {
          logger.error({ err: outcome.error, store }, 'store deletion stopped; it resumes later');
          // Stopped on purpose: the next worker need not wait for the lease.
          if (options.signal?.aborted) await repo.releaseDeletionLease(db, store.id);
        }
      }
    },
    secondsUntilDue: () => repo.secondsUntilNextDeletion(db),
  };
}
