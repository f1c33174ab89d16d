import { isEditable } from './order-state.js';
import { createOrderTimeline } from './order-timeline.js';
import { createOrderPlacing } from './orders.placing.js';
import { createOrderReads } from './orders.reads.js';
import { details, lockOrder, type OrdersDeps } from './orders.shared.js';
import { createOrderStateChanges } from './orders.state-changes.js';
import { createOrderRefunds } from './refunds.service.js';

export type { PlaceOrderInput } from './orders.placing.js';
export type { BuyerNotifier, OrderMailer, OrdersDeps } from './orders.shared.js';
export type { OrderUpdate } from './orders.state-changes.js';
export type { RefundInput } from './refunds.service.js';

/**
 * The orders service: placing orders (orders.placing.ts), reading them (orders.reads.ts) and the
 * merchant's state changes (orders.state-changes.ts), over the shared steps of orders.shared.ts.
 * Editing an order's items is order-edit.ts; refunds are refunds.service.ts.
 */
export function createOrdersService(deps: OrdersDeps) {
  const { placeOrder, create } = createOrderPlacing(deps);
  return {
    placeOrder,
    details,
    lockOrder,
    ...createOrderReads(deps.db),
    create,
    ...createOrderStateChanges(deps),
    ...createOrderRefunds(deps),
    isEditable,
    timeline: createOrderTimeline(deps),
  };
}

export type OrdersService = ReturnType<typeof createOrdersService>;
