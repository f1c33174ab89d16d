import type { IdempotencyClaim } from '../idempotency.js';
import type { Scope } from './scopes.js';

/** Who is calling, on behalf of which store: set by the auth hooks, passed to every service call. */
export interface RequestContext {
  storeId: string;
  actor: { kind: 'api_key' | 'admin_user' | 'customer' | 'system'; id: string };
  /** The `source` of order.updated events this caller causes. */
  source: 'api' | 'admin' | 'system';
  scopes: readonly Scope[];
  /** The Idempotency-Key this request claimed: a creating service records its resource under it. */
  idempotency?: IdempotencyClaim;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The scope a merchant route requires; the merchant auth hook enforces it. */
    scope?: Scope;
  }
  interface FastifyRequest {
    ctx: RequestContext;
  }
}
