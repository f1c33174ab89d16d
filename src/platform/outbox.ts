import { sql } from 'kysely';
import type { Executor } from './db/database.js';
import { newId } from './ids.js';

/** The channel a committed event is announced on; workers LISTEN to it to start at once. */
export const EVENTS_CHANNEL = 'emporium_events';

/**
 * Records a domain event inside the caller's transaction (transactional outbox): the event exists
 * if and only if the change that caused it commits. The NOTIFY in the same statement is delivered
 * by PostgreSQL only at commit, so a worker wakes for committed events and never for rolled-back ones.
 */
export async function recordEvent(
  tx: Executor,
  storeId: string,
  name: string,
  data: Record<string, unknown>,
): Promise<string> {
  const id = newId();
  await sql`
    WITH inserted AS (
      INSERT INTO events (id, store_id, name, data, created_at)
      VALUES (${id}, ${storeId}, ${name}, ${JSON.stringify(data)}, now())
      RETURNING id
    )
    SELECT pg_notify(${EVENTS_CHANNEL}, '') FROM inserted`.execute(tx);
  return id;
}
