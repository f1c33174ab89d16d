import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseHandle, openDatabase } from '../../src/platform/db/database.js';
import { inTransaction } from '../../src/platform/db/transaction.js';
import { WriteBatch, write } from '../../src/platform/db/write-batch.js';
import { newId } from '../../src/platform/ids.js';
import { EVENTS_CHANNEL, recordEvent } from '../../src/platform/outbox.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

/**
 * WriteBatch sends several writes as one statement (checkout's order, lines, buyer totals and
 * events). These check what that must keep: every write lands, a child may reference a parent
 * inserted by a sibling write, the outbox's order is the order of recording, NOTIFY comes at commit
 * only, a failing write fails them all, and parameters of different writes do not mix.
 */
describe('WriteBatch', () => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let storeId: string;
  let statements: string[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    handle = openDatabase(database.url, { max: 3 });
    const pool = handle.pool as pg.Pool & { query: pg.Pool['query'] };
    pool.on('connect', (client) => {
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
        const first = args[0] as string | { text: string };
        statements.push(typeof first === 'string' ? first : first.text);
        return query(...args);
      };
    });
    storeId = newId();
    await handle.db
      .insertInto('stores')
      .values({ id: storeId, slug: `s-${storeId.slice(-8)}`, name: 'Batch' } as never)
      .execute();
  });

  afterAll(async () => {
    await handle?.close();
    await database?.drop();
  });

  const customer = (email: string) => ({
    id: newId(),
    store_id: storeId,
    email,
    first_name: 'Ann',
    last_name: null,
    phone: null,
  });

  it('sends every write in one statement, parent and child together, events in recording order', async () => {
    const orderId = newId();
    const buyer = customer('ann@example.com');
    await handle.db.insertInto('customers').values(buyer).execute();
    statements = [];
    const eventIds = await inTransaction(handle.db, async (tx) => {
      const batch = new WriteBatch(tx);
      await write(batch, (db) =>
        db.insertInto('orders').values({
          id: orderId,
          store_id: storeId,
          order_number: 1001,
          status: 'pending',
          payment_status: 'unpaid',
          fulfillment_status: 'unfulfilled',
          currency: 'USD',
          subtotal: 500,
          total: 500,
          customer_email: 'ann@example.com',
        } as never),
      );
      await write(batch, (db) =>
        db.insertInto('order_line_items').values({
          id: newId(),
          store_id: storeId,
          order_id: orderId,
          name: 'Mug',
          quantity: 2,
          price: 250,
          position: 0,
        } as never),
      );
      await write(batch, (db) =>
        db
          .updateTable('customers')
          .set({ orders_count: 7, total_spent: 500 })
          .where('store_id', '=', storeId)
          .where('id', '=', buyer.id),
      );
      const ids = [];
      for (const name of ['first', 'second', 'third', 'fourth']) {
        ids.push(await recordEvent(batch, storeId, `test.${name}`, { name }));
      }
      expect(batch.size).toBe(4);
      await batch.run();
      expect(batch.size).toBe(0);
      return ids;
    });
    const sent = statements.filter((s) => !/^(begin|commit)$/i.test(s.trim()));
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatch(/^WITH w0 AS \(/);

    const line = await handle.db
      .selectFrom('order_line_items')
      .select(['order_id', 'quantity', 'price'])
      .where('order_id', '=', orderId)
      .executeTakeFirstOrThrow();
    expect(line).toEqual({ order_id: orderId, quantity: 2, price: 250 });
    const stats = await handle.db
      .selectFrom('customers')
      .select(['orders_count', 'total_spent'])
      .where('id', '=', buyer.id)
      .executeTakeFirstOrThrow();
    expect(stats).toEqual({ orders_count: 7, total_spent: 500 });
    const events = await handle.db
      .selectFrom('events')
      .select(['id', 'name', 'data'])
      .where('store_id', '=', storeId)
      .orderBy('seq')
      .execute();
    expect(events.map((e) => e.id)).toEqual(eventIds);
    expect(events.map((e) => e.name)).toEqual(['test.first', 'test.second', 'test.third', 'test.fourth']);
    expect(events[2]?.data).toEqual({ name: 'third' });
  });

  it('notifies the events channel at commit, and not at all when the transaction rolls back', async () => {
    const listener = new pg.Client({ connectionString: database.url });
    await listener.connect();
    const heard: string[] = [];
    listener.on('notification', (n) => heard.push(n.channel));
    await listener.query(`LISTEN ${EVENTS_CHANNEL}`);
    try {
      await expect(
        inTransaction(handle.db, async (tx) => {
          const batch = new WriteBatch(tx);
          await recordEvent(batch, storeId, 'test.rolled_back', {});
          await batch.run();
          throw new Error('abort');
        }),
      ).rejects.toThrow('abort');
      await new Promise((r) => setTimeout(r, 200));
      expect(heard).toEqual([]);

      await inTransaction(handle.db, async (tx) => {
        const batch = new WriteBatch(tx);
        await recordEvent(batch, storeId, 'test.committed', {});
        await batch.run();
        await new Promise((r) => setTimeout(r, 100));
        expect(heard).toEqual([]);
      });
      for (let i = 0; i < 50 && heard.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
      expect(heard).toEqual([EVENTS_CHANNEL]);
      const names = await handle.db
        .selectFrom('events')
        .select('name')
        .where('store_id', '=', storeId)
        .where('name', 'in', ['test.rolled_back', 'test.committed'])
        .execute();
      expect(names.map((n) => n.name)).toEqual(['test.committed']);
    } finally {
      await listener.end();
    }
  });

  it('notifies on a condition only when the write it waits on wrote a row', async () => {
    const listener = new pg.Client({ connectionString: database.url });
    await listener.connect();
    const heard: string[] = [];
    listener.on('notification', (n) => heard.push(n.channel));
    await listener.query('LISTEN batch_test');
    const touch = (email: string) => (db: typeof handle.db) =>
      db
        .updateTable('customers')
        .set({ phone: '1' })
        .where('store_id', '=', storeId)
        .where('email', '=', email)
        .returning('id');
    try {
      await inTransaction(handle.db, async (tx) => {
        const batch = new WriteBatch(tx);
        batch.notifyAtCommit('batch_test', batch.add(touch('nobody@example.com')(tx)));
        await recordEvent(batch, storeId, 'test.with_condition', {});
        await batch.run();
      });
      await new Promise((r) => setTimeout(r, 200));
      expect(heard).toEqual([]);

      await handle.db.insertInto('customers').values(customer('cy@example.com')).execute();
      await inTransaction(handle.db, async (tx) => {
        const batch = new WriteBatch(tx);
        batch.notifyAtCommit('batch_test', batch.add(touch('nobody@example.com')(tx)));
        batch.notifyAtCommit('batch_test', batch.add(touch('cy@example.com')(tx)));
        await batch.run();
      });
      for (let i = 0; i < 50 && heard.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
      expect(heard).toEqual(['batch_test']);
    } finally {
      await listener.end();
    }
  });

  it('fails as a whole: one write breaking a constraint leaves none of the others behind', async () => {
    const first = customer('bo@example.com');
    const duplicate = { ...customer('bo@example.com'), id: first.id };
    await expect(
      inTransaction(handle.db, async (tx) => {
        const batch = new WriteBatch(tx);
        await recordEvent(batch, storeId, 'test.lost', {});
        await write(batch, (db) => db.insertInto('customers').values(first));
        await write(batch, (db) => db.insertInto('customers').values(duplicate));
        await batch.run();
      }),
    ).rejects.toMatchObject({ code: '23505' });
    const left = await handle.db.selectFrom('customers').select('id').where('id', '=', first.id).execute();
    expect(left).toEqual([]);
    const lost = await handle.db.selectFrom('events').select('id').where('name', '=', 'test.lost').execute();
    expect(lost).toEqual([]);
  });

  it('keeps each write with its own parameters (renumbered past the earlier writes)', async () => {
    const people = Array.from({ length: 12 }, (_, i) => customer(`p${i}@example.com`));
    await inTransaction(handle.db, async (tx) => {
      const batch = new WriteBatch(tx);
      for (const person of people) await write(batch, (db) => db.insertInto('customers').values(person));
      await batch.run();
    });
    const rows = await handle.db
      .selectFrom('customers')
      .select(['id', 'email', 'first_name'])
      .where('store_id', '=', storeId)
      .where('email', 'like', 'p%@example.com')
      .execute();
    expect(new Map(rows.map((r) => [r.id, r.email]))).toEqual(new Map(people.map((p) => [p.id, p.email])));
  });

  it('runs a lone write as itself, and an empty batch as nothing', async () => {
    const person = customer('solo@example.com');
    statements = [];
    const batch = new WriteBatch(handle.db);
    await batch.run();
    await write(batch, (db) => db.insertInto('customers').values(person));
    await batch.run();
    expect(statements).toHaveLength(1);
    expect(statements[0]).toMatch(/^insert into "customers"/);
  });
});
