import type { RequestContext } from '../../platform/http/context.js';
import type { OrderChangeSource, OrderChanges } from './order-events.js';

/**
 * The order's durable history (issue 30, item 5): one row per change, with who made it, written in
 * the change's transaction. The outbox's events are pruned once delivered; these rows are not.
 */
/** `unknown`: a change recorded before the history kept its actor (copied from the outbox). */
export type ActorType = 'user' | 'api_key' | 'customer' | 'system' | 'unknown';

/** Who changes an order: the actor for its history, the source for its order.updated event. */
export interface OrderActor {
  source: OrderChangeSource;
  type: ActorType;
  id: string | null;
}

export const SYSTEM_ACTOR: OrderActor = { source: 'system', type: 'system', id: null };

const ACTOR_TYPES = {
  api_key: 'api_key',
  admin_user: 'user',
  customer: 'customer',
  system: 'system',
} as const;

export function actorOf(ctx: RequestContext): OrderActor {
  const type = ACTOR_TYPES[ctx.actor.kind];
  return { source: ctx.source, type, id: type === 'system' ? null : ctx.actor.id };
}

export type HistoryType =
  | 'created'
  | 'paid'
  | 'payment'
  | 'items_edited'
  | 'fulfilled'
  | 'refunded'
  | 'cancelled'
  | 'status_changed'
  | 'notes_changed'
  | 'address_changed'
  /** Copied from an older order.updated event: what changed is in `changes`. */
  | 'updated';

export interface HistoryRow {
  id: string;
  store_id: string;
  order_id: string;
  type: HistoryType;
  actor_type: ActorType;
  actor_id: string | null;
  changes: OrderChanges;
  data: Record<string, unknown>;
  created_at: Date;
}
