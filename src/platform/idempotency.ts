import { noteCreatedResource } from './audit-trail.js';
import type { Executor } from './db/database.js';

/** The Idempotency-Key a request claimed (set on the request context by the HTTP layer). */
export interface IdempotencyClaim {
  storeId: string;
  key: string;
}

/**
 * Records, in the creating transaction, the resource a request with an Idempotency-Key created.
 * Either the resource and this pointer both commit or neither does, so a retry after a crash
 * between the commit and the stored response re-renders the same resource instead of creating
 * another one (platform/http/idempotency.ts). The request's audit row takes the resource's id too
 * (noteCreatedResource), with or without a claim.
 */
export async function recordIdempotentResource(
  tx: Executor,
  claim: IdempotencyClaim | undefined,
  resource: { type: string; id: string },
): Promise<void> {
  noteCreatedResource(resource);
  if (!claim) return;
  await tx
    .updateTable('idempotency_keys')
    .set({ resource_type: resource.type, resource_id: resource.id })
    .where('store_id', '=', claim.storeId)
    .where('key', '=', claim.key)
    .execute();
}
