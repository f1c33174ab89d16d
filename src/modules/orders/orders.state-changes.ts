import type { Executor, Tx } from '../../platform/db/database.js';
import { inTransaction } from '../../platform/db/transaction.js';
import type { RequestContext } from '../../platform/http/context.js';
import { withStoredCountry } from '../../platform/http/country-input.js';
import { conflict, invalidRequest } from '../../platform/http/errors.js';
import { type IfMatch, requireMatch } from '../../platform/http/etag.js';
import { newId } from '../../platform/ids.js';
import { amountOf, diff, recordOrderCancelled, recordOrderPaid, recordOrderUpdated } from './order-events.js';
import { actorOf, type OrderActor, SYSTEM_ACTOR } from './order-history.js';
import { recordHistory } from './order-history.repository.js';
import { mailCancelled, mailConfirmation, mailNewOrder, mailShipped } from './orders.mail.js';
import * as repo from './orders.repository.js';
import {
  details,
  lockOrder,
  notify,
  type OrdersDeps,
  requireTransition,
  restockLines,
  type Tracking,
} from './orders.shared.js';
import type { Address, OrderStatus } from './orders.tables.js';
import * as refundsRepo from './refunds.repository.js';
import { paymentStatusOf, refundStatusOf } from './totals.js';

export interface OrderUpdate {
  status?: OrderStatus;
  notes?: string | null;
  shipping_address?: Address | null;
}

/**
 * The merchant's state changes: mark-paid, fulfil, cancel and PATCH (status, on hold, notes,
 * address). Each runs in one transaction that locks the order first (lockOrder), then takes the
 * other locks in the order of docs/decisions.md.
 */
export function createOrderStateChanges(deps: OrdersDeps) {
  const { db, customers } = deps;

  /** Takes a payment on the order (locked by the caller); the order is paid when nothing is owed. */
  async function collect(
    tx: Executor,
    order: repo.OrderRow,
    amount: number,
    paymentMethod: string | null,
    by: OrderActor,
  ) {
    const amountPaid = order.amount_paid + amount;
    const settled = paymentStatusOf(order.total, amountPaid);
    const paymentStatus = refundStatusOf(amountPaid, order.amount_refunded) ?? settled;
    const nowPaid = settled === 'paid';
    const status: OrderStatus = nowPaid && order.status === 'pending' ? 'processing' : order.status;
    // The buyer's row before the order's own write (whose analytics trigger takes the last lock).
    if (order.customer_id && status !== 'cancelled')
      await customers.addOrderStats(tx, order.store_id, order.customer_id, { orders: 0, spent: amount });
    const updated = await repo.updateOrder(tx, order.store_id, order.id, {
      amount_paid: amountPaid,
      payment_status: paymentStatus,
      status,
      payment_method: paymentMethod ?? order.payment_method,
      ...(nowPaid ? { paid_at: new Date() } : {}),
    });
    const lines = await repo.lineItems(tx, order.store_id, order.id);
    const changes = diff(
      {
        status: order.status,
        paymentStatus: order.payment_status,
        amountPaid: amountOf(order, order.amount_paid),
      },
      {
        status: updated.status,
        paymentStatus: updated.payment_status,
        amountPaid: amountOf(updated, updated.amount_paid),
      },
    );
    await recordOrderUpdated(tx, updated, changes, by.source);
    await recordHistory(tx, updated, by, nowPaid ? 'paid' : 'payment', {
      changes,
      data: { amount: amountOf(order, amount), payment_method: updated.payment_method },
    });
    if (nowPaid) {
      await recordOrderPaid(tx, updated, lines);
      await notify(deps, tx, updated, 'paid');
    }
    return updated;
  }

  async function fulfillLocked(tx: Executor, order: repo.OrderRow, tracking: Tracking, by: OrderActor) {
    if (order.fulfillment_status === 'fulfilled') throw conflict('the order is already fulfilled');
    requireTransition(order, 'completed');
    const fulfillmentId = newId();
    await repo.insertFulfillment(tx, {
      id: fulfillmentId,
      store_id: order.store_id,
      order_id: order.id,
      carrier: tracking.carrier ?? null,
      tracking_number: tracking.tracking_number ?? null,
      tracking_url: tracking.tracking_url ?? null,
      created_at: new Date(),
    });
    const updated = await repo.updateOrder(tx, order.store_id, order.id, {
      status: 'completed',
      fulfillment_status: 'fulfilled',
      fulfilled_at: new Date(),
    });
    const changes = diff(
      { status: order.status, fulfillmentStatus: order.fulfillment_status },
      { status: updated.status, fulfillmentStatus: updated.fulfillment_status },
    );
    await recordOrderUpdated(tx, updated, changes, by.source);
    await recordHistory(tx, updated, by, 'fulfilled', {
      changes,
      data: {
        carrier: tracking.carrier ?? null,
        tracking_number: tracking.tracking_number ?? null,
        tracking_url: tracking.tracking_url ?? null,
      },
    });
    await notify(deps, tx, updated, 'fulfilled', tracking);
    await mailShipped(deps, tx, updated, fulfillmentId);
    return updated;
  }

  async function cancelLocked(
    tx: Tx,
    order: repo.OrderRow,
    options: { reason?: string | null; restock?: boolean; mailBuyer?: boolean },
    by: OrderActor,
  ) {
    if (order.status === 'cancelled') throw conflict('the order is already cancelled');
    if (order.fulfillment_status === 'fulfilled') throw conflict('a fulfilled order cannot be cancelled');
    requireTransition(order, 'cancelled');
    // Lock order (docs/decisions.md): the buyer, then the stock, then the order's own write. Taking
    // the stock first deadlocked against checkouts of the same buyer, which lock buyer then stock.
    // What the buyer spent on it, net of what was already refunded, leaves their total.
    const kept = order.amount_paid - order.amount_refunded;
    if (order.customer_id && kept > 0)
      await customers.addOrderStats(tx, order.store_id, order.customer_id, { orders: 0, spent: -kept });
    if (options.restock !== false) {
      // Units a refund already returned to stock are not returned twice.
      const { restocked } = await refundsRepo.commitments(tx, order.store_id, order.id);
      const lines = await repo.lineItems(tx, order.store_id, order.id);
      await restockLines(
        deps,
        tx,
        order.store_id,
        lines.map((line) => ({ line, quantity: line.quantity - (restocked.get(line.id) ?? 0) })),
        { source: 'cancel', reason: 'order cancelled' },
      );
    }
    const updated = await repo.updateOrder(tx, order.store_id, order.id, {
      status: 'cancelled',
      status_before_hold: null,
      cancel_reason: options.reason ?? null,
      cancelled_at: new Date(),
      payment_status: order.amount_paid > 0 ? 'refund_due' : order.payment_status,
    });
    const changes = diff(
      { status: order.status, paymentStatus: order.payment_status },
      { status: updated.status, paymentStatus: updated.payment_status },
    );
    await recordOrderUpdated(tx, updated, changes, by.source);
    await recordOrderCancelled(tx, updated);
    await recordHistory(tx, updated, by, 'cancelled', {
      changes,
      data: { reason: updated.cancel_reason, restocked: options.restock !== false },
    });
    await notify(deps, tx, updated, 'cancelled');
    if (options.mailBuyer !== false) await mailCancelled(deps, tx, updated);
    return updated;
  }

  return {
    /**
     * A payment provider confirmed a payment after checkout (Stripe's payment_intent.succeeded), in
     * the caller's transaction (which also records the provider's event once). An order already paid
     * is left as it is; money arriving for a cancelled order is kept on it as `refund_due`.
     */
    async recordProviderPayment(
      tx: Tx,
      storeId: string,
      orderId: string,
      payment: { amount: number; paymentMethod: string },
    ): Promise<'paid' | 'already_paid' | 'refund_due'> {
      const order = await lockOrder(tx, storeId, orderId);
      if (order.status === 'cancelled') {
        const updated = await repo.updateOrder(tx, storeId, order.id, {
          amount_paid: order.amount_paid + payment.amount,
          payment_status: 'refund_due',
        });
        const changes = diff(
          { paymentStatus: order.payment_status, amountPaid: amountOf(order, order.amount_paid) },
          { paymentStatus: updated.payment_status, amountPaid: amountOf(updated, updated.amount_paid) },
        );
        await recordOrderUpdated(tx, updated, changes, 'system');
        await recordHistory(tx, updated, SYSTEM_ACTOR, 'payment', {
          changes,
          data: { amount: amountOf(order, payment.amount), payment_method: payment.paymentMethod },
        });
        return 'refund_due';
      }
      if (order.amount_paid >= order.total) return 'already_paid';
      const paid = await collect(
        tx,
        order,
        Math.min(payment.amount, order.total - order.amount_paid),
        payment.paymentMethod,
        SYSTEM_ACTOR,
      );
      // The order checkout placed waiting for this payment is announced now (see placeOrder).
      await mailConfirmation(deps, tx, paid);
      await mailNewOrder(deps, tx, paid);
      return 'paid';
    },

    /**
     * Cancels an order whose payment failed or never came (reason `payment_failed`,
     * `payment_expired`), its stock back, in the caller's transaction. False when there is nothing
     * to cancel: already cancelled, paid, or fulfilled.
     */
    async cancelUnpaid(tx: Tx, storeId: string, orderId: string, reason: string): Promise<boolean> {
      const order = await lockOrder(tx, storeId, orderId);
      if (order.status === 'cancelled' || order.amount_paid > 0 || order.fulfillment_status === 'fulfilled')
        return false;
      // Its buyer was never sent a confirmation (it is sent at payment): no cancellation e-mail either.
      await cancelLocked(tx, order, { reason, restock: true, mailBuyer: false }, SYSTEM_ACTOR);
      return true;
    },

    /**
     * PATCH: notes and address, and status through the same rules as the actions: processing is
     * mark-paid (full balance), completed is fulfil, cancelled is cancel (with restock).
     */
    update(ctx: RequestContext, id: string, patch: OrderUpdate, ifMatch?: IfMatch) {
      return inTransaction(db, async (tx) => {
        let order = await lockOrder(tx, ctx.storeId, id);
        requireMatch(ifMatch, order);
        const by = actorOf(ctx);
        if (order.status === 'cancelled' && patch.shipping_address !== undefined)
          throw conflict('the address of a cancelled order cannot change');
        // The status action first: it may lock the buyer and the stock, which come before the
        // order's own writes in the lock order (docs/decisions.md).
        const to = patch.status;
        if (to !== undefined && to !== order.status) {
          requireTransition(order, to);
          if (to === 'cancelled') order = await cancelLocked(tx, order, {}, by);
          else if (to === 'completed') order = await fulfillLocked(tx, order, {}, by);
          else if (to === 'processing' && order.status === 'pending') {
            const balance = order.total - order.amount_paid;
            if (balance <= 0) throw conflict('the order has no balance to collect');
            order = await collect(tx, order, balance, null, by);
          } else {
            const updated = await repo.updateOrder(tx, ctx.storeId, order.id, {
              status: to,
              status_before_hold: to === 'on_hold' ? order.status : null,
            });
            const changes = diff({ status: order.status }, { status: to });
            await recordOrderUpdated(tx, updated, changes, by.source);
            await recordHistory(tx, updated, by, 'status_changed', { changes });
            order = updated;
          }
        }
        const fields: Partial<repo.OrderRow> = {};
        if (patch.notes !== undefined) fields.notes = patch.notes;
        if (patch.shipping_address !== undefined)
          fields.shipping_address = patch.shipping_address && withStoredCountry(patch.shipping_address);
        if (Object.keys(fields).length) {
          const updated = await repo.updateOrder(tx, ctx.storeId, order.id, {
            ...(fields.notes !== undefined ? { notes: fields.notes } : {}),
            ...(fields.shipping_address !== undefined
              ? { shipping_address: fields.shipping_address ? JSON.stringify(fields.shipping_address) : null }
              : {}),
          });
          const notes = diff({ notes: order.notes }, { notes: updated.notes });
          const address = diff(
            { shippingAddress: order.shipping_address },
            { shippingAddress: updated.shipping_address },
          );
          await recordOrderUpdated(tx, updated, { ...notes, ...address }, by.source);
          if (Object.keys(notes).length)
            await recordHistory(tx, updated, by, 'notes_changed', { changes: notes });
          if (Object.keys(address).length)
            await recordHistory(tx, updated, by, 'address_changed', { changes: address });
          order = updated;
        }
        return details(tx, order);
      });
    },

    fulfill(ctx: RequestContext, id: string, tracking: Tracking) {
      return inTransaction(db, async (tx) => {
        const order = await lockOrder(tx, ctx.storeId, id);
        if (order.status === 'cancelled') throw conflict('a cancelled order cannot be fulfilled');
        return details(tx, await fulfillLocked(tx, order, tracking, actorOf(ctx)));
      });
    },

    cancel(ctx: RequestContext, id: string, options: { reason?: string | null; restock?: boolean }) {
      return inTransaction(db, async (tx) => {
        const order = await lockOrder(tx, ctx.storeId, id);
        return details(tx, await cancelLocked(tx, order, options, actorOf(ctx)));
      });
    },

    /** Collects `amount` (default: the balance due); an order fully paid becomes processing. */
    markPaid(ctx: RequestContext, id: string, input: { amount?: number; payment_method?: string | null }) {
      return inTransaction(db, async (tx) => {
        const order = await lockOrder(tx, ctx.storeId, id);
        if (order.status === 'cancelled') throw conflict('a cancelled order cannot be paid');
        const balance = order.total - order.amount_paid;
        if (balance <= 0) throw conflict('the order has no balance to collect');
        const amount = input.amount ?? balance;
        if (amount <= 0 || amount > balance)
          throw invalidRequest(`amount must be more than 0 and at most the balance due`, [
            { field: 'amount', message: 'out of range' },
          ]);
        return details(tx, await collect(tx, order, amount, input.payment_method ?? null, actorOf(ctx)));
      });
    },
  };
}
