import type { Insertable } from 'kysely';
import type { Tx } from '../../platform/db/database.js';
import * as repo from './orders.repository.js';
import type {
  OrderFulfillmentsTable,
  OrderLineItemsTable,
  OrdersTable,
  RefundsTable,
} from './orders.tables.js';
import { insertRefundsBulk } from './refunds.repository.js';

/** Rows of historic orders, as the importer writes them (ids, numbers and times already set). */
export interface HistoricOrderBatch {
  orders: Insertable<OrdersTable>[];
  lines: Insertable<OrderLineItemsTable>[];
  fulfillments: Insertable<OrderFulfillmentsTable>[];
  /** Refunds of those orders, whose `amount_refunded` and payment status already count them. */
  refunds?: Insertable<RefundsTable>[];
}

/** Where the imported history starts: the next free order number, after the store's newest order. */
export interface HistoryStart {
  firstNumber: number;
  newestCreatedAt: Date | undefined;
}

/** Produces the history in batches, so a million orders never sit in memory at once. */
export interface HistorySource {
  next(size: number): HistoricOrderBatch;
}

const BATCH = 2000;

/**
 * Historic orders with line items, fulfilments and refunds, written in bulk inside the caller's transaction:
 * the store's order counter stays locked throughout (its concurrent orders wait), numbers continue
 * it without a gap, then the counter and the buyers' orders count and total spent are updated
 * once. Stock is not touched: these orders are history. Returns how many were written.
 */
export async function importHistoricOrders(
  tx: Tx,
  storeId: string,
  count: number,
  open: (start: HistoryStart) => HistorySource,
  onProgress?: (done: number, total: number) => void,
): Promise<number> {
  const { nextNumber, newestCreatedAt } = await repo.lockOrderCounterForBulk(tx, storeId);
  const history = open({ firstNumber: nextNumber, newestCreatedAt: newestCreatedAt ?? undefined });
  let done = 0;
  let batch = history.next(BATCH);
  while (batch.orders.length > 0) {
    const current = batch;
    const writing = (async () => {
      await repo.insertOrdersBulk(tx, current.orders);
      await repo.insertLineItemsBulk(tx, current.lines);
      await repo.insertFulfillmentsBulk(tx, current.fulfillments);
      if (current.refunds?.length) await insertRefundsBulk(tx, current.refunds);
    })();
    // Let the first statement go out, then build the next batch while PostgreSQL writes this one.
    await new Promise((resolve) => setImmediate(resolve));
    const following = history.next(BATCH);
    await writing;
    done += current.orders.length;
    onProgress?.(done, count);
    batch = following;
  }
  // Before anything in the transaction reads the orders back (the buyers' figures below, the seed's
  // analytics rebuild): the statistics describe only the stores analysed before, so this store
  // counts as "one order" and the statements get nested loops over every pair of rows (issue 29:
  // minutes for 50,000 orders). ANALYZE samples the transaction's own rows; its statistics commit
  // with them.
  await repo.analyzeOrderTables(tx);
  await repo.advanceOrderCounter(tx, storeId, done);
  await repo.addCustomerStatsOfOrders(tx, storeId, nextNumber, nextNumber + done - 1);
  return done;
}
