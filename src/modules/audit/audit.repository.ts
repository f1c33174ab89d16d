import { CompiledQuery, sql } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import { prepared } from '../../platform/db/prepared.js';
import type { AuditActorType } from './audit.tables.js';

export interface AuditEntry {
  id: string;
  storeId: string;
  actor: { type: AuditActorType; id: string | null; name: string | null };
  action: string;
  resourceType: string;
  resourceId: string | null;
  ip: string | null;
}

const INSERT_ENTRY = `INSERT INTO audit_log
  (id, store_id, actor_type, actor_id, actor_name, action, resource_type, resource_id, ip)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`;

/**
 * One audit row, on the executor of the write it records (its transaction), so both commit or neither.
 * A named statement: it runs once per merchant write, so PostgreSQL keeps it parsed per connection.
 */
export async function insertAuditEntry(db: Executor, entry: AuditEntry): Promise<void> {
  await db.executeQuery(
    prepared(
      CompiledQuery.raw(INSERT_ENTRY, [
        entry.id,
        entry.storeId,
        entry.actor.type,
        entry.actor.id,
        entry.actor.name,
        entry.action,
        entry.resourceType,
        entry.resourceId,
        entry.ip,
      ]),
    ),
  );
}

/** A row this transaction inserted names another resource (one its work created after the row went in). */
export async function setAuditResource(
  db: Executor,
  row: { id: string; storeId: string; resourceId: string | null },
): Promise<void> {
  await db
    .updateTable('audit_log')
    .set({ resource_id: row.resourceId })
    .where('store_id', '=', row.storeId)
    .where('id', '=', row.id)
    .execute();
}

export interface AuditFilter {
  actorId?: string;
  resourceType?: string;
  resourceId?: string;
  from?: Date;
  to?: Date;
}

function filtered(db: Executor, storeId: string, filter: AuditFilter) {
  let query = db.selectFrom('audit_log').where('store_id', '=', storeId);
  if (filter.actorId !== undefined) query = query.where('actor_id', '=', filter.actorId);
  if (filter.resourceType !== undefined) query = query.where('resource_type', '=', filter.resourceType);
  if (filter.resourceId !== undefined) query = query.where('resource_id', '=', filter.resourceId);
  if (filter.from !== undefined) query = query.where('created_at', '>=', filter.from);
  if (filter.to !== undefined) query = query.where('created_at', '<', filter.to);
  return query;
}

/**
 * A page of the store's log, newest first by id (UUID v7: the order rows were written in), by the
 * (store_id, id) key or the actor and resource indexes; `after` continues a cursor walk past that id.
 */
export async function listAuditEntries(
  db: Executor,
  storeId: string,
  filter: AuditFilter,
  page: { offset: number; limit: number; after?: string },
) {
  let rowsQuery = filtered(db, storeId, filter)
    .selectAll()
    .orderBy('id', 'desc')
    .limit(page.limit + 1);
  rowsQuery = page.after ? rowsQuery.where('id', '<', page.after) : rowsQuery.offset(page.offset);
  const [rows, count] = await Promise.all([
    rowsQuery.execute(),
    filtered(db, storeId, filter)
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .executeTakeFirstOrThrow(),
  ]);
  return { rows: rows.slice(0, page.limit), total: Number(count.total), more: rows.length > page.limit };
}

/** Deletes at most `limit` entries written before `before` (SKIP LOCKED: workers side by side take different rows). */
export async function deleteAuditEntriesBefore(db: Executor, before: Date, limit: number): Promise<number> {
  const result = await sql`DELETE FROM audit_log WHERE id = ANY(ARRAY(
    SELECT id FROM audit_log WHERE created_at < ${before} LIMIT ${limit} FOR UPDATE SKIP LOCKED))`.execute(
    db,
  );
  return Number(result.numAffectedRows ?? 0);
}
