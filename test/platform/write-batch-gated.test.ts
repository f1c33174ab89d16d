import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Executor } from '../../src/platform/db/database.js';
import { type DatabaseHandle, openDatabase } from '../../src/platform/db/database.js';
import { compiled, rawSql, sqlText } from '../../src/platform/db/sql-text.js';
import { inTransaction } from '../../src/platform/db/transaction.js';
import {
  type GatedWrites,
  insertRows,
  LATE_NUMBER,
  WriteBatch,
  write,
} from '../../src/platform/db/write-batch.js';
import { newId } from '../../src/platform/ids.js';
import { recordEvent } from '../../src/platform/outbox.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

/**
 * WriteBatch.gated: the batch as CTEs of a statement that defines `gate` (checkout: the order
 * counter taken with the last stock move). Its writes run only when the gate has a row, with
 * LATE_NUMBER bound to the gate's number, and its NOTIFYs only then.
 */
describe('WriteBatch.gated', () => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let storeId: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    handle = openDatabase(database.url, { max: 3 });
    storeId = newId();
    await handle.db
      .insertInto('stores')
      .values({ id: storeId, slug: `s-${storeId.slice(-8)}`, name: 'Gated' } as never)
      .execute();
  });

  afterAll(async () => {
    await handle?.close();
    await database?.drop();
  });

  /** The batch after a gate that has its one row `number` when `open`, no row otherwise. */
  const runGated = (db: Executor, gated: GatedWrites, number: number, open: boolean) =>
    db.executeQuery(
      compiled(sqlText`WITH gate AS (SELECT ${number}::bigint AS number WHERE ${open}::boolean)${gated.ctes}
      SELECT 1 AS one${gated.columns}`),
    );

  const stage = async (tx: Executor, email: string) => {
    const orderId = newId();
    const customerId = newId();
    await tx
      .insertInto('customers')
      .values({ id: customerId, store_id: storeId, email, first_name: 'Ann' } as never)
      .execute();
    const batch = new WriteBatch(tx);
    await write(batch, (db) =>
      db.insertInto('orders').values({
        id: orderId,
        store_id: storeId,
        order_number: LATE_NUMBER,
        status: 'pending',
        payment_status: 'unpaid',
        fulfillment_status: 'unfulfilled',
        currency: 'USD',
        subtotal: 500,
        total: 500,
        customer_email: email,
      } as never),
    );
    for (const position of [0, 1])
      batch.add(
        tx.insertInto('order_line_items').values({
          id: newId(),
          store_id: storeId,
          order_id: orderId,
          name: `Line ${position}`,
          quantity: 1,
          price: 250,
          position,
        } as never),
      );
    await write(batch, (db) =>
      db
        .updateTable('customers')
        .set((eb) => ({ orders_count: eb('orders_count', '+', 1) }))
        .where('store_id', '=', storeId)
        .where('id', '=', customerId),
    );
    await recordEvent(batch, storeId, 'test.created', { orderId, orderNumber: LATE_NUMBER });
    await recordEvent(batch, storeId, 'test.paid', { orderId, title: `Order #${LATE_NUMBER} paid` });
    return { batch, orderId, customerId };
  };

  it('writes everything, with the late number, when the gate has a row; NOTIFY at commit', async () => {
    const listener = new pg.Client({ connectionString: database.url });
    await listener.connect();
    const heard: string[] = [];
    listener.on('notification', (n) => heard.push(n.channel));
    await listener.query('LISTEN emporium_events');
    try {
      const { orderId, customerId } = await inTransaction(handle.db, async (tx) => {
        const staged = await stage(tx, 'open@example.com');
        await runGated(tx, staged.batch.gated('gate'), 4242, true);
        expect(staged.batch.size).toBe(0);
        return staged;
      });
      const order = await handle.db
        .selectFrom('orders')
        .select('order_number')
        .where('id', '=', orderId)
        .executeTakeFirstOrThrow();
      expect(Number(order.order_number)).toBe(4242);
      const lines = await handle.db
        .selectFrom('order_line_items')
        .select('position')
        .where('order_id', '=', orderId)
        .orderBy('position')
        .execute();
      expect(lines).toEqual([{ position: 0 }, { position: 1 }]);
      const buyer = await handle.db
        .selectFrom('customers')
        .select('orders_count')
        .where('id', '=', customerId)
        .executeTakeFirstOrThrow();
      expect(buyer.orders_count).toBe(1);
      const events = await handle.db
        .selectFrom('events')
        .select(['name', 'data'])
        .where('store_id', '=', storeId)
        .orderBy('seq')
        .execute();
      expect(events).toEqual([
        { name: 'test.created', data: { orderId, orderNumber: '4242' } },
        { name: 'test.paid', data: { orderId, title: 'Order #4242 paid' } },
      ]);
      for (let i = 0; i < 50 && heard.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
      expect(heard).toEqual(['emporium_events']);
    } finally {
      await listener.end();
    }
  });

  it('writes nothing, and notifies no one, when the gate has no row', async () => {
    const listener = new pg.Client({ connectionString: database.url });
    await listener.connect();
    const heard: string[] = [];
    listener.on('notification', (n) => heard.push(n.channel));
    await listener.query('LISTEN emporium_events');
    try {
      const eventsBefore = await handle.db.selectFrom('events').select('id').execute();
      const { orderId, customerId } = await inTransaction(handle.db, async (tx) => {
        const staged = await stage(tx, 'shut@example.com');
        await runGated(tx, staged.batch.gated('gate'), 4243, false);
        return staged;
      });
      expect(await handle.db.selectFrom('orders').select('id').where('id', '=', orderId).execute()).toEqual(
        [],
      );
      expect(
        await handle.db.selectFrom('order_line_items').select('id').where('order_id', '=', orderId).execute(),
      ).toEqual([]);
      const buyer = await handle.db
        .selectFrom('customers')
        .select('orders_count')
        .where('id', '=', customerId)
        .executeTakeFirstOrThrow();
      expect(buyer.orders_count).toBe(0);
      expect(await handle.db.selectFrom('events').select('id').execute()).toEqual(eventsBefore);
      await new Promise((r) => setTimeout(r, 200));
      expect(heard).toEqual([]);
    } finally {
      await listener.end();
    }
  });

  it('refuses a write it cannot gate', () => {
    const batch = new WriteBatch(handle.db);
    batch.add(
      handle.db
        .insertInto('customers')
        .values({ id: newId() } as never)
        .returning('id'),
    );
    expect(() => batch.gated('gate')).toThrow(/cannot gate/);
  });

  it('insertRows: the SQL Kysely compiles for the rows, undefined columns left out, SQL values spliced', () => {
    const row = {
      id: newId(),
      store_id: storeId,
      email: 'x@example.com',
      first_name: null,
      phone: undefined,
    };
    const ours = insertRows('customers', [row]);
    const kysely = handle.db.insertInto('customers').values(row).compile();
    expect(ours.sql).toBe(kysely.sql);
    expect(ours.parameters).toEqual(kysely.parameters);
    const second = { ...row, id: newId(), email: 'y@example.com' };
    const two = insertRows('customers', [row, second]);
    const kyselyTwo = handle.db.insertInto('customers').values([row, second]).compile();
    expect(two.sql).toBe(kyselyTwo.sql);
    expect(two.parameters).toEqual(kyselyTwo.parameters);
    const withSql = insertRows('customers', [
      { ...row, created_at: rawSql('now()'), email: sqlText`lower(${'X@e.com'})` },
    ]);
    expect(withSql.sql).toBe(
      handle.db
        .insertInto('customers')
        .values({ ...row, created_at: sql<Date>`now()`, email: sql<string>`lower(${'X@e.com'})` })
        .compile().sql,
    );
    expect(withSql.parameters).toEqual([row.id, storeId, 'X@e.com', null]);
    expect(() => insertRows('customers', [row, { ...second, phone: '1' }])).toThrow(/different columns/);
    expect(() => insertRows('customers', [row, { ...second, first_name: undefined }])).toThrow(/missing/);
  });
});
