import type { Insertable, Selectable } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import { containsPattern } from '../../platform/db/like.js';
import type { CustomersTable } from './customers.tables.js';

export type CustomerRow = Selectable<CustomersTable>;

export interface CustomerFilter {
  q?: string;
}

function filtered(db: Executor, storeId: string, filter: CustomerFilter) {
  let query = db.selectFrom('customers').where('store_id', '=', storeId);
  if (filter.q) {
    const pattern = containsPattern(filter.q);
    query = query.where((eb) =>
      eb.or([
        eb('email', 'ilike', pattern),
        eb('first_name', 'ilike', pattern),
        eb('last_name', 'ilike', pattern),
        eb(eb.fn('concat_ws', [eb.val(' '), 'first_name', 'last_name']), 'ilike', pattern),
      ]),
    );
  }
  return query;
}

/** Newest first; the (store_id, created_at, id) index serves both the page and the count. */
export async function listCustomers(
  db: Executor,
  storeId: string,
  filter: CustomerFilter,
  page: { offset: number; limit: number },
): Promise<{ rows: CustomerRow[]; total: number }> {
  const [rows, count] = await Promise.all([
    filtered(db, storeId, filter)
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    filtered(db, storeId, filter)
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.total) };
}

export function findCustomer(db: Executor, storeId: string, id: string) {
  return db
    .selectFrom('customers')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export function insertCustomers(db: Executor, rows: Insertable<CustomersTable>[]) {
  return db.insertInto('customers').values(rows).returningAll().execute();
}
