import { rawSql, sqlText } from './db/sql-text.js';
import { WriteBatch, type Writer } from './db/write-batch.js';
import { newId } from './ids.js';

/** The channel a committed event is announced on; workers LISTEN to it to start at once. */
export const EVENTS_CHANNEL = 'emporium_events';

/**
 * Records a domain event inside the caller's transaction (transactional outbox): the event exists
 * if and only if the change that caused it commits. The NOTIFY in the same statement is delivered
 * by PostgreSQL only at commit, so a worker wakes for committed events and never for rolled-back ones.
 * Given a WriteBatch, the event joins the batch's single statement.
 */
export async function recordEvent(
  to: Writer,
  storeId: string,
  name: string,
  data: Record<string, unknown>,
): Promise<string> {
  const id = newId();
  const batch = to instanceof WriteBatch ? to : new WriteBatch(to);
  // Typed values: a gated batch (WriteBatch.gated) writes several events as a UNION ALL of SELECTs.
  batch.insertRow('events', {
    id: sqlText`${id}::uuid`,
    store_id: sqlText`${storeId}::uuid`,
    name: sqlText`${name}::text`,
    data: sqlText`${JSON.stringify(data)}::jsonb`,
    created_at: rawSql('now()'),
  });
  batch.notifyAtCommit(EVENTS_CHANNEL);
  // Written now, unless the caller is collecting its transaction's writes into one statement.
  if (batch !== to) await batch.run();
  return id;
}
