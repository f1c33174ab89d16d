import { sql } from 'kysely';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customerFromJson, upsertByEmailQuery } from '../../src/modules/customers/customers.repository.js';
import { type DatabaseHandle, openDatabase } from '../../src/platform/db/database.js';
import { readTogether } from '../../src/platform/db/read-together.js';
import { inTransaction } from '../../src/platform/db/transaction.js';
import { newId } from '../../src/platform/ids.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

/**
 * readTogether sends several queries as one statement (checkout's buyer upsert, catalogue facts and
 * automatic discounts). These check what that must keep: one statement, each part's own rows in the
 * order it asks for, parameters of different parts kept apart, an upsert that runs exactly once and
 * whose row comes back with its types, and parts left out when undefined.
 */
describe('readTogether', () => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let storeId: string;
  let statements: string[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    handle = openDatabase(database.url, { max: 3 });
    const pool = handle.pool as pg.Pool;
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
      .values({ id: storeId, slug: `s-${storeId.slice(-8)}`, name: 'Together' } as never)
      .execute();
  });

  afterAll(async () => {
    await handle?.close();
    await database?.drop();
  });

  it('runs an upsert and reads in one statement, each part with its own parameters and order', async () => {
    const row = {
      id: newId(),
      store_id: storeId,
      email: 'bea@example.com',
      first_name: 'Bea',
      last_name: null,
      phone: null,
    };
    statements = [];
    const read = await inTransaction(handle.db, (tx) =>
      readTogether(tx, {
        buyer: { query: upsertByEmailQuery(row) },
        numbers: {
          query: sql<{ n: number }>`SELECT n FROM generate_series(1, ${3}::int) AS n`.compile(tx),
          orderBy: 'n DESC',
        },
        words: { query: sql<{ w: string }>`SELECT ${'$1 stays text'}::text AS w`.compile(tx) },
        absent: undefined,
      }),
    );
    expect(statements.filter((s) => !/^(begin|commit)$/i.test(s.trim()))).toHaveLength(1);
    expect(read.numbers).toEqual([{ n: 3 }, { n: 2 }, { n: 1 }]);
    expect(read.words).toEqual([{ w: '$1 stays text' }]);
    expect(read.absent).toBeUndefined();
    const buyer = customerFromJson(read.buyer?.[0]);
    expect(buyer).toMatchObject({ id: row.id, email: 'bea@example.com', first_name: 'Bea', orders_count: 0 });
    expect(buyer.created_at).toBeInstanceOf(Date);

    // The same e-mail again: the existing customer comes back (and the upsert ran once: one row).
    const again = await readTogether(handle.db, {
      buyer: { query: upsertByEmailQuery({ ...row, id: newId(), last_name: 'Lee' }) },
    });
    expect(again.buyer).toHaveLength(1);
    expect(customerFromJson(again.buyer?.[0])).toMatchObject({ id: row.id, last_name: 'Lee' });
    const count = await handle.db
      .selectFrom('customers')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('store_id', '=', storeId)
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(1);
  });

  it('answers an empty array for a part without rows', async () => {
    const read = await readTogether(handle.db, {
      none: { query: sql`SELECT 1 AS one WHERE false`.compile(handle.db) },
    });
    expect(read.none).toEqual([]);
  });
});
