import type { OrderStatus } from './orders.tables.js';

/**
 * The order life cycle as data (contract §3). `on_hold` returns to the status it paused, which the
 * order remembers in `status_before_hold`; the table lists what every status may become.
 */
export const ORDER_TRANSITIONS: Readonly<Record<OrderStatus, readonly OrderStatus[]>> = {
  pending: ['processing', 'on_hold', 'cancelled'],
  processing: ['completed', 'on_hold', 'cancelled'],
  on_hold: ['pending', 'processing', 'cancelled'],
  completed: [],
  cancelled: [],
};

export const ORDER_STATUSES = Object.keys(ORDER_TRANSITIONS) as OrderStatus[];

/** Whether `from` may become `to`; leaving on_hold is allowed only back to the status it paused. */
export function canTransition(from: OrderStatus, to: OrderStatus, beforeHold: OrderStatus | null): boolean {
  if (!ORDER_TRANSITIONS[from].includes(to)) return false;
  if (from === 'on_hold' && to !== 'cancelled') return to === (beforeHold ?? 'pending');
  return true;
}

/** Only orders not yet fulfilled nor cancelled may have their items edited. */
export function isEditable(status: OrderStatus): boolean {
  return status === 'pending' || status === 'processing' || status === 'on_hold';
}
