import type { IdempotencyClaim } from '../idempotency.js';
import type { Scope } from './scopes.js';

/** Who is calling, on behalf of which store: set by the auth hooks, passed to every service call. */
export interface RequestContext {
  storeId: string;
  actor: { kind: 'api_key' | 'admin_user' | 'customer' | 'system'; id: string };
  /** The `source` of order.updated events this caller causes. */
  source: 'api' | 'admin' | 'system';
  scopes: readonly Scope[];
  /** Admin sessions only: the member's role (owners alone manage staff, API keys, payments, deletion). */
  role?: 'owner' | 'staff';
  /** Who, as the audit log names them: a user's name or e-mail, an API key's name. */
  actorName?: string;
  /** The Idempotency-Key this request claimed: a creating service records its resource under it. */
  idempotency?: IdempotencyClaim;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The scope a merchant route requires; the merchant auth hook enforces it. */
    scope?: Scope;
    /** Admin sessions of staff members are refused (403): owners alone (contract §14). */
    ownerOnly?: boolean;
    /**
     * The audit log's entry for a write route: the action ("order.cancel") and resource type, derived
     * from the operationId unless given here; `false` for a POST that changes nothing (a preview).
     */
    audit?: { action?: string; resourceType?: string } | false;
  }
  interface FastifyRequest {
    ctx: RequestContext;
  }
}
