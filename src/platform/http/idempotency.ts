import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import { deleteInBatches } from '../db/delete-in-batches.js';
import type { IdempotencyClaim } from '../idempotency.js';
import { conflict, invalidRequest } from './errors.js';

/**
 * A creation route honouring Idempotency-Key. Its service records the created resource under the
 * claim (`ctx.idempotency`, recordIdempotentResource) in the creating transaction; `render` gives
 * the 201 body for that resource again, through the route's own serializer and response schema,
 * when the stored response was lost (a crash or a failed write after the commit).
 */
export interface IdempotentRoute {
  render(request: FastifyRequest, resourceId: string): Promise<unknown>;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route honours Idempotency-Key (creation POSTs). */
    idempotent?: IdempotentRoute;
  }
  interface FastifyRequest {
    idempotency?: IdempotencyClaim;
  }
}

/**
 * Test-only fault injection: runs after the work committed and before its response is stored, as
 * a crash at that moment would (tests throw from it). Never set outside tests.
 */
export const idempotencyFaults: { beforeStore?: (request: FastifyRequest) => void | Promise<void> } = {};

const TTL_MS = 24 * 3600 * 1000;
/** A claim still without an answer after this long belongs to a request that died. */
const ABANDONED_AFTER_MS = 60_000;
/** What an Idempotency-Key may be: 1-255 visible ASCII characters (the OpenAPI parameter says the same). */
export const IDEMPOTENCY_KEY_PATTERN = '^[\\x21-\\x7e]{1,255}$';
const KEY = new RegExp(IDEMPOTENCY_KEY_PATTERN);

function fingerprint(request: FastifyRequest): string {
  return createHash('sha256')
    .update(
      `${request.method} ${request.routeOptions.url}\n${JSON.stringify(request.params)}\n${JSON.stringify(request.body ?? null)}`,
    )
    .digest('hex');
}

/** The claim goes on the request (for onSend) and on its context (for the creating service). */
function claim(request: FastifyRequest, claimed: IdempotencyClaim) {
  request.idempotency = claimed;
  request.ctx = { ...request.ctx, idempotency: claimed };
}

/**
 * Stripe-style idempotency for creation POSTs: the first request with a key claims it (a row
 * inserted before the work); its response is stored when it completes; a retry with the same key
 * and body gets that response back (`Idempotent-Replayed: true`) and creates nothing. The resource
 * created is also recorded in the creating transaction, so a response lost after the commit is
 * re-rendered from it rather than the work being done twice. The same key
 * with another body, or while the first is still running, is 409. A 5xx releases the key.
 */
export function installIdempotency(app: FastifyInstance, db: Db): void {
  app.addHook('preHandler', async (request, reply) => {
    const route = request.routeOptions.config.idempotent;
    if (!route) return;
    const header = request.headers['idempotency-key'];
    if (header === undefined) return;
    const key = Array.isArray(header) ? header[0] : header;
    if (!key || !KEY.test(key))
      throw invalidRequest('Idempotency-Key must be 1-255 visible ASCII characters');
    const storeId = request.ctx.storeId;
    const hash = fingerprint(request);
    await db
      .deleteFrom('idempotency_keys')
      .where('store_id', '=', storeId)
      .where('key', '=', key)
      .where('created_at', '<', new Date(Date.now() - TTL_MS))
      .execute();
    const claimed = await db
      .insertInto('idempotency_keys')
      .values({ store_id: storeId, key, request_hash: hash, created_at: new Date() })
      .onConflict((oc) => oc.columns(['store_id', 'key']).doNothing())
      .returning('key')
      .executeTakeFirst();
    if (claimed) {
      claim(request, { storeId, key });
      return;
    }
    const previous = await db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('store_id', '=', storeId)
      .where('key', '=', key)
      .executeTakeFirst();
    if (!previous || previous.request_hash !== hash) {
      throw conflict('this Idempotency-Key was used with a different request');
    }
    if (previous.status_code === null || previous.response_body === null) {
      if (previous.resource_id !== null) {
        // The work committed (its pointer came with it) but its answer was never stored: the
        // same resource is answered again, never created twice.
        reply.header('idempotent-replayed', 'true');
        return reply.code(201).send(await route.render(request, previous.resource_id));
      }
      // A claim without a resource or an answer: its request created nothing (it crashed, or
      // failed before its commit). It is released after a while, so the key does not stay
      // blocked for its whole 24 hours, and the request may then run again.
      const reclaimed = await db
        .updateTable('idempotency_keys')
        .set({ created_at: new Date() })
        .where('store_id', '=', storeId)
        .where('key', '=', key)
        .where('status_code', 'is', null)
        .where('resource_id', 'is', null)
        .where('created_at', '<', new Date(Date.now() - ABANDONED_AFTER_MS))
        .returning('key')
        .executeTakeFirst();
      if (!reclaimed) throw conflict('a request with this Idempotency-Key is still in progress');
      claim(request, { storeId, key });
      return;
    }
    reply.header('idempotent-replayed', 'true');
    return reply
      .code(previous.status_code)
      .type('application/json')
      .serializer((p: unknown) => p as string)
      .send(previous.response_body);
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const claim = request.idempotency;
    if (!claim) return payload;
    request.idempotency = undefined;
    await idempotencyFaults.beforeStore?.(request);
    // The work is done and its answer must reach the client whatever happens here: a failure to
    // store it is logged, and the claim is then released after ABANDONED_AFTER_MS.
    try {
      if (reply.statusCode >= 500 || typeof payload !== 'string') {
        await db
          .deleteFrom('idempotency_keys')
          .where('store_id', '=', claim.storeId)
          .where('key', '=', claim.key)
          .execute();
      } else {
        await db
          .updateTable('idempotency_keys')
          .set({ status_code: reply.statusCode, response_body: payload })
          .where('store_id', '=', claim.storeId)
          .where('key', '=', claim.key)
          .execute();
      }
    } catch (error) {
      request.log.error({ err: error }, 'could not store the response of an Idempotency-Key');
    }
    return payload;
  });
}

/**
 * Deletes keys older than their 24 hours (with their stored responses) in bounded batches, SKIP
 * LOCKED so that workers pruning side by side take different rows; for the background worker's
 * schedule. (A request that meets an expired key of its own deletes it first, above.)
 */
export async function pruneIdempotencyKeys(db: Db, options: { batchSize: number; signal?: AbortSignal }) {
  const keys = await deleteInBatches(async (limit) => {
    const before = new Date(Date.now() - TTL_MS);
    const result = await sql`DELETE FROM idempotency_keys WHERE ctid = ANY(ARRAY(
      SELECT ctid FROM idempotency_keys WHERE created_at < ${before} LIMIT ${limit} FOR UPDATE SKIP LOCKED))`.execute(
      db,
    );
    return Number(result.numAffectedRows ?? 0);
  }, options);
  return { idempotency_keys: keys };
}
