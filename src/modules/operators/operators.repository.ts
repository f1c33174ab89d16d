import { sql } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import { type CreatedKey, createdMicros, olderThan } from '../../platform/db/keyset.js';
import { containsPattern } from '../../platform/db/like.js';

export async function insertOperator(
  db: Executor,
  row: { id: string; email: string; password_hash: string },
) {
  return db
    .insertInto('operators')
    .values(row)
    .returning(['id', 'email', 'created_at'])
    .executeTakeFirstOrThrow();
}

export function findOperatorByEmail(db: Executor, email: string) {
  return db
    .selectFrom('operators')
    .selectAll()
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
    .executeTakeFirst();
}

export async function touchOperatorLogin(db: Executor, id: string) {
  await db.updateTable('operators').set({ last_login_at: new Date() }).where('id', '=', id).execute();
}

/** Replaces a weak hash only if it is still the one just verified (a password changed meanwhile wins). */
export async function replaceOperatorPasswordHash(db: Executor, id: string, from: string, to: string) {
  await db
    .updateTable('operators')
    .set({ password_hash: to })
    .where('id', '=', id)
    .where('password_hash', '=', from)
    .execute();
}

export async function insertOperatorSession(
  db: Executor,
  row: { id: string; operator_id: string; token_hash: Buffer; expires_at: Date },
) {
  await db.insertInto('operator_sessions').values(row).execute();
}

/** The operator of a live session. */
export function findOperatorSession(db: Executor, tokenHash: Buffer) {
  return db
    .selectFrom('operator_sessions as s')
    .innerJoin('operators as o', 'o.id', 's.operator_id')
    .select(['o.id', 'o.email'])
    .where('s.token_hash', '=', tokenHash)
    .where('s.expires_at', '>', sql<Date>`now()`)
    .executeTakeFirst();
}

export async function deleteOperatorSession(db: Executor, tokenHash: Buffer) {
  await db.deleteFrom('operator_sessions').where('token_hash', '=', tokenHash).execute();
}

/** Deletes up to `limit` sessions that expired before `before` (SKIP LOCKED); returns how many. */
export async function deleteExpiredOperatorSessions(db: Executor, before: Date, limit: number) {
  const result = await sql`DELETE FROM operator_sessions WHERE ctid = ANY(ARRAY(
    SELECT ctid FROM operator_sessions WHERE expires_at < ${before} LIMIT ${limit} FOR UPDATE SKIP LOCKED))`.execute(
    db,
  );
  return Number(result.numAffectedRows ?? 0);
}

export interface StoreItemRow {
  id: string;
  slug: string;
  name: string;
  status: 'active' | 'suspended';
  currency: string;
  timezone: string;
  custom_domain: string | null;
  suspended_at: Date | null;
  suspension_reason: string | null;
  created_at: Date;
  created_micros: string;
  owner_email: string | null;
  products_count: string;
  orders_30d: string;
  revenue_30d: string;
  last_activity_at: Date | null;
  members_count: string;
}

/** What the operator's list and store page show: stores that are neither being deleted nor legacy-disabled. */
export type StoreFilter = { id: string } | { q?: string; after?: CreatedKey; limit: number };

/**
 * One statement for a page of the operator's store list (or one store): the page of stores is taken
 * first (newest first, by the (created_at, id) index; a search filters slug, name and the owners'
 * e-mails), then each of its rows reads only counters kept elsewhere, each an index probe:
 * - products: product_counts (kept by triggers, migration 0027);
 * - orders and revenue of the last 30 days (today and the 29 days before it, in the store's time
 *   zone; orders not cancelled, as the dashboard's analytics count them): analytics_daily, the
 *   per-store daily rollup, plus its journal (analytics_pending_days), so the figures include orders
 *   not folded yet without folding (no write on a read);
 * - last activity: the latest of the newest order (one probe of orders_store_created_idx), a member's
 *   sign-in, the store's last change and stores.last_activity_at (when something records it).
 */
export async function selectStoreItems(db: Executor, filter: StoreFilter): Promise<StoreItemRow[]> {
  const where = [sql`s.status IN ('active', 'suspended')`];
  let limit = 1;
  if ('id' in filter) {
    where.push(sql`s.id = ${filter.id}`);
  } else {
    limit = filter.limit;
    if (filter.q) {
      const pattern = containsPattern(filter.q);
      where.push(sql`(s.slug ILIKE ${pattern} OR s.name ILIKE ${pattern} OR EXISTS (
        SELECT 1 FROM admin_user_stores m JOIN admin_users u ON u.id = m.admin_user_id
        WHERE m.store_id = s.id AND m.role = 'owner' AND u.email ILIKE ${pattern}))`);
    }
    if (filter.after) where.push(olderThan('s', filter.after));
  }
  const result = await sql<StoreItemRow>`
    WITH page AS (
      SELECT s.* FROM stores s
      WHERE ${sql.join(where, sql` AND `)}
      ORDER BY s.created_at DESC, s.id DESC
      LIMIT ${limit}
    )
    SELECT p.id, p.slug, p.name, p.status, p.currency, p.timezone, p.custom_domain, p.suspended_at,
      p.suspension_reason, p.created_at, ${createdMicros('p')} AS created_micros,
      owner.email AS owner_email,
      coalesce(products.n, 0)::text AS products_count,
      coalesce(sales.orders, 0)::text AS orders_30d,
      coalesce(sales.revenue, 0)::text AS revenue_30d,
      GREATEST(p.last_activity_at, p.updated_at, latest_order.created_at, members.signed_in_at) AS last_activity_at,
      members.n::text AS members_count
    FROM page p
    CROSS JOIN LATERAL (SELECT (now() AT TIME ZONE p.timezone)::date - 29 AS since) w
    LEFT JOIN LATERAL (
      SELECT u.email FROM admin_user_stores m JOIN admin_users u ON u.id = m.admin_user_id
      WHERE m.store_id = p.id
      ORDER BY m.role = 'owner' DESC, m.created_at, u.id LIMIT 1
    ) owner ON true
    CROSS JOIN LATERAL (
      SELECT count(*) AS n, max(u.last_login_at) AS signed_in_at
      FROM admin_user_stores m JOIN admin_users u ON u.id = m.admin_user_id
      WHERE m.store_id = p.id
    ) members
    LEFT JOIN LATERAL (SELECT sum(c.count) AS n FROM product_counts c WHERE c.store_id = p.id) products ON true
    LEFT JOIN LATERAL (
      SELECT sum(d.pending + d.processing + d.on_hold + d.completed) AS orders,
        sum(d.revenue) AS revenue
      FROM (
        SELECT pending, processing, on_hold, completed, revenue FROM analytics_daily
        WHERE store_id = p.id AND day >= w.since
        UNION ALL
        SELECT pending, processing, on_hold, completed, revenue FROM analytics_pending_days
        WHERE store_id = p.id AND day >= w.since
      ) d
    ) sales ON true
    LEFT JOIN LATERAL (
      SELECT o.created_at FROM orders o WHERE o.store_id = p.id ORDER BY o.created_at DESC, o.id DESC LIMIT 1
    ) latest_order ON true
    ORDER BY p.created_at DESC, p.id DESC`.execute(db);
  return result.rows;
}
