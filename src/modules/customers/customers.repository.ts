import { type CompiledQuery, type Insertable, type Selectable, sql } from 'kysely';
import type { Executor, Tx } from '../../platform/db/database.js';
import { type CreatedKey, createdMicros, olderThan } from '../../platform/db/keyset.js';
import { containsPattern } from '../../platform/db/like.js';
import { jsonDate } from '../../platform/db/read-together.js';
import { compiled, sqlText } from '../../platform/db/sql-text.js';
import { type Writer, write } from '../../platform/db/write-batch.js';
import type { CustomerAddressesTable, CustomersTable } from './customers.tables.js';

export type CustomerRow = Selectable<CustomersTable>;
export type AddressRow = Selectable<CustomerAddressesTable>;
export interface AddressView {
  id: string;
  line1: string;
  line2: string | null;
  city: string;
  region: string | null;
  postal_code: string;
  country: string;
  phone: string | null;
  is_default: boolean;
}
export type CustomerWithAddresses = CustomerRow & { addresses: AddressView[] };

/** The customer's saved addresses as one JSON array, default first, in the same round trip. */
const addressesJson = sql<AddressView[]>`(
  SELECT COALESCE(json_agg(json_build_object('id', a.id, 'line1', a.line1, 'line2', a.line2, 'city', a.city,
    'region', a.region, 'postal_code', a.postal_code, 'country', a.country, 'phone', a.phone,
    'is_default', a.is_default) ORDER BY a.is_default DESC, a.created_at), '[]'::json)
  FROM customer_addresses a WHERE a.store_id = customers.store_id AND a.customer_id = customers.id)`;

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

/**
 * Newest first; the (store_id, created_at, id) index serves the page and the count. A page by number
 * (OFFSET), or the page after a cursor's key (an index range, whatever the depth); one row more is
 * read to tell whether another page follows, and each row carries its exact created_at.
 */
export async function listCustomers(
  db: Executor,
  storeId: string,
  filter: CustomerFilter,
  page: { offset: number; limit: number; after?: CreatedKey },
): Promise<{ rows: (CustomerWithAddresses & { created_us: string })[]; total: number; more: boolean }> {
  let rowsQuery = filtered(db, storeId, filter)
    .selectAll()
    .select(addressesJson.as('addresses'))
    .select(createdMicros('customers').as('created_us'))
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit + 1);
  rowsQuery = page.after
    ? rowsQuery.where(olderThan('customers', page.after))
    : rowsQuery.offset(page.offset);
  const [rows, count] = await Promise.all([
    rowsQuery.execute(),
    filtered(db, storeId, filter)
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .executeTakeFirstOrThrow(),
  ]);
  return { rows: rows.slice(0, page.limit), total: Number(count.total), more: rows.length > page.limit };
}

export function findCustomer(db: Executor, storeId: string, id: string) {
  return db
    .selectFrom('customers')
    .selectAll()
    .select(addressesJson.as('addresses'))
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/**
 * Locks a customer row as an UPDATE of it would (FOR NO KEY UPDATE), so a transaction can take the
 * buyer's lock before the stock's, in the documented lock order (docs/decisions.md).
 */
export function lockCustomer(db: Tx, storeId: string, id: string) {
  return lockCustomerQuery(db, storeId, id).executeTakeFirst();
}

export function lockCustomerQuery(db: Tx, storeId: string, id: string) {
  return db
    .selectFrom('customers')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .forNoKeyUpdate();
}

export function addOrderStats(
  to: Writer,
  storeId: string,
  customerId: string,
  delta: { orders: number; spent: number },
) {
  return write(
    to,
    sqlText`UPDATE customers SET orders_count = orders_count + ${delta.orders}, total_spent = total_spent + ${delta.spent}
      WHERE store_id = ${storeId} AND id = ${customerId}`,
  );
}

export function insertCustomers(db: Executor, rows: Insertable<CustomersTable>[]) {
  return db.insertInto('customers').values(rows).returningAll().execute();
}

/**
 * The store's customer with this e-mail (case-insensitive), created when absent; names and phone
 * fill in only where the record has none. One statement, so concurrent checkouts by one new shopper
 * create one customer. As a query, for checkout's readTogether; its row comes back through
 * customerFromJson.
 *
 * A returning buyer whose record has nothing to fill in is locked (ON CONFLICT locks the row even
 * when its WHERE is false) but not written: no row version for nothing (issue 34). Such an upsert
 * returns no row; `lockByEmailQuery`, sent beside it, gives the row then.
 */
export function upsertByEmailQuery(row: Insertable<CustomersTable>): CompiledQuery<CustomerRow> {
  return compiled(sqlText`
    INSERT INTO customers (id, store_id, email, first_name, last_name, phone, created_at, updated_at)
    VALUES (${row.id}, ${row.store_id}, ${row.email}, ${row.first_name ?? null}, ${row.last_name ?? null},
      ${row.phone ?? null}, now(), now())
    ON CONFLICT (store_id, lower(email)) DO UPDATE SET
      first_name = COALESCE(customers.first_name, EXCLUDED.first_name),
      last_name = COALESCE(customers.last_name, EXCLUDED.last_name),
      phone = COALESCE(customers.phone, EXCLUDED.phone)
    WHERE (customers.first_name IS NULL AND EXCLUDED.first_name IS NOT NULL)
      OR (customers.last_name IS NULL AND EXCLUDED.last_name IS NOT NULL)
      OR (customers.phone IS NULL AND EXCLUDED.phone IS NOT NULL)
    RETURNING *`);
}

/**
 * The store's customer with this (lower-cased) e-mail, locked: its newest version, as the upsert
 * would have returned it. Sent in the same statement as upsertByEmailQuery, whose lock it shares;
 * it does not see a customer created after the statement's snapshot (a concurrent first checkout of
 * the same shopper): findLockedByEmail, in a statement of its own, does.
 */
export function lockByEmailQuery(storeId: string, email: string): CompiledQuery<CustomerRow> {
  return compiled(sqlText`
    SELECT * FROM customers WHERE store_id = ${storeId} AND lower(email) = ${email}
    FOR NO KEY UPDATE`);
}

export async function findLockedByEmail(db: Executor, storeId: string, email: string) {
  const result = await db.executeQuery(lockByEmailQuery(storeId, email));
  return result.rows[0];
}

export async function upsertByEmail(db: Executor, row: Insertable<CustomersTable>): Promise<CustomerRow> {
  const result = await db.executeQuery(upsertByEmailQuery(row));
  const customer = result.rows[0] ?? (await findLockedByEmail(db, row.store_id, row.email));
  if (!customer) throw new Error('customer upsert returned no row');
  return customer;
}

/** A customer row that came back as JSON (readTogether), with its timestamps as Dates again. */
export function customerFromJson(json: unknown): CustomerRow {
  const row = json as CustomerRow;
  return { ...row, created_at: jsonDate(row.created_at), updated_at: jsonDate(row.updated_at) };
}

export function findByEmail(db: Executor, storeId: string, email: string) {
  return db
    .selectFrom('customers')
    .selectAll()
    .where('store_id', '=', storeId)
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
    .executeTakeFirst();
}

export function addressesOf(db: Executor, storeId: string, customerIds: string[]) {
  if (customerIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('customer_addresses')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('customer_id', 'in', customerIds)
    .orderBy('is_default', 'desc')
    .orderBy('created_at')
    .execute();
}

export function updateProfile(
  db: Executor,
  storeId: string,
  id: string,
  patch: { first_name?: string | null; last_name?: string | null; phone?: string | null },
) {
  return db
    .updateTable('customers')
    .set({ ...patch, updated_at: new Date() })
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export function listAddresses(db: Executor, storeId: string, customerId: string) {
  return db
    .selectFrom('customer_addresses')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('customer_id', '=', customerId)
    .orderBy('is_default', 'desc')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function clearDefaultAddress(db: Executor, storeId: string, customerId: string) {
  await db
    .updateTable('customer_addresses')
    .set({ is_default: false })
    .where('store_id', '=', storeId)
    .where('customer_id', '=', customerId)
    .where('is_default', '=', true)
    .execute();
}

export function insertAddress(db: Executor, row: Insertable<CustomerAddressesTable>) {
  return db.insertInto('customer_addresses').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function deleteAddress(db: Executor, storeId: string, customerId: string, id: string) {
  const result = await db
    .deleteFrom('customer_addresses')
    .where('store_id', '=', storeId)
    .where('customer_id', '=', customerId)
    .where('id', '=', id)
    .returning('is_default')
    .executeTakeFirst();
  return result;
}

/** After the default address is deleted, the oldest remaining one becomes the default. */
export async function promoteOldestAddress(db: Executor, storeId: string, customerId: string) {
  await sql`
    UPDATE customer_addresses SET is_default = true
    WHERE id = (SELECT id FROM customer_addresses WHERE store_id = ${storeId} AND customer_id = ${customerId}
      ORDER BY created_at, id LIMIT 1)`.execute(db);
}
