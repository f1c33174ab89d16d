import type { Executor } from './db/database.js';
import { newId } from './ids.js';

/**
 * Records a domain event inside the caller's transaction (transactional outbox): the event exists
 * if and only if the change that caused it commits. Delivery (webhooks, push) reads from here.
 */
export async function recordEvent(
  tx: Executor,
  storeId: string,
  name: string,
  data: Record<string, unknown>,
): Promise<string> {
  const id = newId();
  await tx
    .insertInto('events')
    .values({ id, store_id: storeId, name, data: JSON.stringify(data), created_at: new Date() })
    .execute();
  return id;
}
