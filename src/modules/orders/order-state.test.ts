import { describe, expect, it } from 'vitest';
import { canTransition, isEditable, ORDER_STATUSES, ORDER_TRANSITIONS } from './order-state.js';
import type { OrderStatus } from './orders.tables.js';

/**
 * CONTRACT.md §3 Orders, written out independently of order-state.ts:
 *   pending    → processing, on_hold, cancelled
 *   processing → completed, on_hold, cancelled
 *   on_hold    → back to the status before it, cancelled
 *   completed, cancelled → none
 */
const STATUSES: OrderStatus[] = ['pending', 'processing', 'on_hold', 'completed', 'cancelled'];

/** What the contract allows from `from` when the order paused `beforeHold` (only read for on_hold). */
function contractAllows(from: OrderStatus, to: OrderStatus, beforeHold: OrderStatus): boolean {
  switch (from) {
    case 'pending':
      return to === 'processing' || to === 'on_hold' || to === 'cancelled';
    case 'processing':
      return to === 'completed' || to === 'on_hold' || to === 'cancelled';
    case 'on_hold':
      return to === beforeHold || to === 'cancelled';
    case 'completed':
    case 'cancelled':
      return false;
  }
}

// Every (status, next status) pair; on_hold once for each status it can have paused.
const pairs = STATUSES.flatMap((from) =>
  (from === 'on_hold' ? (['pending', 'processing'] as const) : ([null] as const)).flatMap((beforeHold) =>
    STATUSES.map((to) => ({
      from,
      to,
      beforeHold,
      allowed: contractAllows(from, to, beforeHold ?? 'pending'),
    })),
  ),
);

describe('order transitions', () => {
  it('covers every status of the contract', () => {
    expect([...ORDER_STATUSES].sort()).toEqual([...STATUSES].sort());
    expect(pairs).toHaveLength(5 * 5 + 5);
    expect(pairs.filter((p) => p.allowed)).toHaveLength(3 + 3 + 2 * 2);
  });

  it.each(pairs)(
    '$from → $to (paused from $beforeHold): allowed $allowed',
    ({ from, to, beforeHold, allowed }) => {
      expect(canTransition(from, to, beforeHold)).toBe(allowed);
    },
  );

  it.each([
    ['pending', ['processing', 'on_hold', 'cancelled']],
    ['processing', ['completed', 'on_hold', 'cancelled']],
    ['on_hold', ['pending', 'processing', 'cancelled']],
    ['completed', []],
    ['cancelled', []],
  ] as const)('the table lists %s → %j', (from, next) => {
    expect([...ORDER_TRANSITIONS[from]].sort()).toEqual([...next].sort());
  });

  it('an order paused before the status was remembered returns to pending only', () => {
    expect(canTransition('on_hold', 'pending', null)).toBe(true);
    expect(canTransition('on_hold', 'processing', null)).toBe(false);
    expect(canTransition('on_hold', 'cancelled', null)).toBe(true);
  });

  it('no status becomes itself', () => {
    for (const status of STATUSES) expect(canTransition(status, status, 'pending')).toBe(false);
  });

  it.each([
    ['pending', true],
    ['processing', true],
    ['on_hold', true],
    ['completed', false],
    ['cancelled', false],
  ] as const)('items of a %s order editable: %s', (status, editable) => {
    expect(isEditable(status)).toBe(editable);
  });
});
