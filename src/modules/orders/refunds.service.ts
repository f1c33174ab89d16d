import type { Tx } from '../../platform/db/database.js';
import { inTransaction } from '../../platform/db/transaction.js';
import type { RequestContext } from '../../platform/http/context.js';
import { conflict, invalidRequest, notFound } from '../../platform/http/errors.js';
import { recordIdempotentResource } from '../../platform/idempotency.js';
import { isUuid, newId } from '../../platform/ids.js';
import { currencyDecimals, toDecimalString } from '../../platform/money.js';
import { amountOf, diff, recordOrderRefunded, recordOrderUpdated } from './order-events.js';
import { actorOf, type OrderActor, SYSTEM_ACTOR } from './order-history.js';
import { recordHistory } from './order-history.repository.js';
import { mailRefunded } from './orders.mail.js';
import * as repo from './orders.repository.js';
import { details, lockOrder, notify, type OrdersDeps, restockLines } from './orders.shared.js';
import type { RestockedLine } from './orders.tables.js';
import type { ExternalRefund, ProviderRefundResult, RefundGateway } from './refund-gateway.js';
import * as refunds from './refunds.repository.js';
import { refundStatusOf } from './totals.js';

export interface RefundInput {
  /** Minor units of the order's currency. */
  amount: number;
  reason?: string | null;
  restock?: RestockedLine[];
}

/**
 * Refunds (contract §9), inside the orders module. A refund the store records itself (manual,
 * test_card) is one transaction: the order locked, the bounds checked, the refund written as
 * succeeded and applied. A refund through a provider's gateway (Stripe) is three steps, so no network
 * call happens under a lock: (1) in the order's transaction the refund is written `pending`, which
 * reserves its amount and its units (the bounds count pending refunds too, and the order's lock
 * serialises the checks); (2) after commit, outside any transaction, the gateway is called with the
 * refund id as idempotency key; (3) a short transaction settles it: succeeded is applied, failed
 * releases the reservation; still pending (or no answer) stays reserved until the provider reports
 * it (recordProviderRefunds). Stock moves only when the money did: a pending refund's units go back
 * at success, never before.
 */
export function createOrderRefunds(deps: OrdersDeps) {
  const { db, customers } = deps;

  /** The provider recorded on the refund: the gateway's payment method, or the store's own record. */
  const providerOf = (paymentMethod: string | null, gateway: RefundGateway | undefined) =>
    gateway && paymentMethod ? paymentMethod : paymentMethod === 'test_card' ? 'test_card' : 'manual';

  /** Checks the refund against what was paid and bought, minus what earlier refunds committed. */
  async function checkBounds(tx: Tx, order: repo.OrderRow, input: RefundInput) {
    if (order.amount_paid <= 0) throw conflict('the order has not been paid: there is nothing to refund');
    const committed = await refunds.commitments(tx, order.store_id, order.id);
    const refundable = order.amount_paid - committed.amount;
    if (input.amount <= 0 || input.amount > refundable) {
      const most = toDecimalString(Math.max(0, refundable), currencyDecimals(order.currency));
      throw invalidRequest(`amount must be more than 0 and at most ${most} (paid minus refunded)`, [
        { field: 'amount', message: `out of range: at most ${most}` },
      ]);
    }
    const restock = input.restock ?? [];
    if (restock.length === 0) return [];
    if (order.status === 'cancelled')
      throw conflict("a cancelled order's stock was settled when it was cancelled: refund without restock");
    const lines = new Map((await repo.lineItems(tx, order.store_id, order.id)).map((l) => [l.id, l]));
    const asked = new Map<string, number>();
    restock.forEach((r, i) => {
      const line = lines.get(r.line_item_id);
      if (!line)
        throw invalidRequest(`restock.${i}.line_item_id is not a line of this order`, [
          { field: `restock.${i}.line_item_id`, message: 'unknown line item' },
        ]);
      const quantity = (asked.get(line.id) ?? 0) + r.quantity;
      const left = line.quantity - (committed.restocked.get(line.id) ?? 0);
      if (quantity > left)
        throw invalidRequest(`restock.${i}.quantity is more than the ${left} unit(s) left to restock`, [
          { field: `restock.${i}.quantity`, message: `at most ${left}` },
        ]);
      asked.set(line.id, quantity);
    });
    return [...asked].map(([line_item_id, quantity]) => ({ line_item_id, quantity }));
  }

  /**
   * A succeeded refund's effects on the order (locked by the caller), in the lock order of
   * docs/decisions.md: the buyer's total, then the stock, then the order's own write; then the
   * events and the buyer's push.
   */
  async function applySucceeded(
    tx: Tx,
    order: repo.OrderRow,
    refund: refunds.RefundRow,
    options: { restock: boolean; by: OrderActor },
  ) {
    // A cancelled order's payment already left the buyer's total when it was cancelled.
    if (order.customer_id && order.status !== 'cancelled')
      await customers.addOrderStats(tx, order.store_id, order.customer_id, {
        orders: 0,
        spent: -refund.amount,
      });
    if (options.restock && refund.restocked.length) {
      const lines = new Map((await repo.lineItems(tx, order.store_id, order.id)).map((l) => [l.id, l]));
      await restockLines(
        deps,
        tx,
        order.store_id,
        refund.restocked.flatMap((r) => {
          const line = lines.get(r.line_item_id);
          return line ? [{ line, quantity: r.quantity }] : [];
        }),
        { source: 'refund', reason: 'refund' },
      );
    }
    const amountRefunded = order.amount_refunded + refund.amount;
    const updated = await repo.updateOrder(tx, order.store_id, order.id, {
      amount_refunded: amountRefunded,
      payment_status: refundStatusOf(order.amount_paid, amountRefunded) ?? order.payment_status,
    });
    const changes = diff(
      { paymentStatus: order.payment_status, amountRefunded: amountOf(order, order.amount_refunded) },
      { paymentStatus: updated.payment_status, amountRefunded: amountOf(updated, updated.amount_refunded) },
    );
    await recordOrderUpdated(tx, updated, changes, options.by.source);
    const full = await details(tx, updated);
    await recordOrderRefunded(tx, full, refund);
    await recordHistory(tx, updated, options.by, 'refunded', {
      changes,
      data: {
        refund_id: refund.id,
        amount: amountOf(order, refund.amount),
        reason: refund.reason,
        restocked: options.restock ? refund.restocked : [],
      },
    });
    await notify(deps, tx, updated, 'refunded', undefined, {
      amount: toDecimalString(refund.amount, currencyDecimals(updated.currency)),
      currency: updated.currency,
      full: updated.payment_status === 'refunded',
    });
    await mailRefunded(deps, tx, updated, refund.id);
    return updated;
  }

  /** Step 3 of a gateway refund: a short transaction records what the provider answered. */
  async function settle(
    storeId: string,
    orderId: string,
    refundId: string,
    answer: ProviderRefundResult | undefined,
    by: OrderActor,
  ) {
    return inTransaction(db, async (tx) => {
      const order = await lockOrder(tx, storeId, orderId);
      const providerRefundId = answer?.providerRefundId ?? null;
      if (answer?.status === 'succeeded') {
        const refund = await refunds.settleRefund(tx, storeId, refundId, ['pending'], {
          status: 'succeeded',
          provider_refund_id: providerRefundId,
        });
        // Undefined: the provider's own report (recordProviderRefunds) settled it first.
        if (refund) await applySucceeded(tx, order, refund, { restock: true, by });
      } else if (answer?.status === 'failed') {
        await refunds.settleRefund(tx, storeId, refundId, ['pending'], {
          status: 'failed',
          provider_refund_id: providerRefundId,
          failure_reason: answer.error ?? 'the provider refused the refund',
        });
      } else if (providerRefundId) {
        await refunds.settleRefund(tx, storeId, refundId, ['pending'], {
          status: 'pending',
          provider_refund_id: providerRefundId,
        });
      }
      const refund = await refunds.findRefund(tx, storeId, refundId);
      if (!refund) throw notFound('refund');
      return { refund, currency: order.currency };
    });
  }

  return {
    /** POST /orders/{id}/refunds: the refund as it stands when the answer is sent. */
    async refund(ctx: RequestContext, orderId: string, input: RefundInput) {
      const by = actorOf(ctx);
      const placed = await inTransaction(db, async (tx) => {
        const order = await lockOrder(tx, ctx.storeId, orderId);
        const restocked = await checkBounds(tx, order, input);
        const gateway = deps.refundGateways.find((g) => g.handles(order.payment_method ?? ''));
        const refund = await refunds.insertRefund(tx, {
          id: newId(),
          store_id: order.store_id,
          order_id: order.id,
          amount: input.amount,
          reason: input.reason ?? null,
          status: gateway ? 'pending' : 'succeeded',
          provider: providerOf(order.payment_method, gateway),
          provider_refund_id: null,
          restocked,
        });
        await recordIdempotentResource(tx, ctx.idempotency, { type: 'refund', id: refund.id });
        if (!gateway) await applySucceeded(tx, order, refund, { restock: true, by });
        return { order, refund, gateway };
      });
      const { order, refund, gateway } = placed;
      if (!gateway) return { refund, currency: order.currency };
      let answer: ProviderRefundResult | undefined;
      try {
        answer = await gateway.refund({
          storeId: order.store_id,
          orderId: order.id,
          refundId: refund.id,
          paymentMethod: order.payment_method ?? '',
          amount: refund.amount,
          currency: order.currency,
          reason: refund.reason,
        });
      } catch {
        // No answer: the provider may or may not have refunded. The refund stays pending (its amount
        // reserved) and is settled by the provider's report; a retry with its id is idempotent.
        answer = undefined;
      }
      return settle(order.store_id, order.id, refund.id, answer, by);
    },

    async listRefunds(ctx: RequestContext, orderId: string, page: { offset: number; limit: number }) {
      const order = isUuid(orderId) ? await repo.findOrder(db, ctx.storeId, orderId) : undefined;
      if (!order) throw notFound('order');
      return { ...(await refunds.listRefunds(db, ctx.storeId, order.id, page)), currency: order.currency };
    },

    /** Succeeded refunds made on the store's local days `from`..`to` (analytics' net revenue). */
    refundedBetween: (storeId: string, days: { from: string; to: string }, timezone: string) =>
      refunds.refundedBetween(db, storeId, days, timezone),

    async getRefund(ctx: RequestContext, refundId: string) {
      const refund = await refunds.findRefund(db, ctx.storeId, refundId);
      if (!refund) throw notFound('refund');
      const order = await repo.findOrder(db, ctx.storeId, refund.order_id);
      if (!order) throw notFound('refund');
      return { refund, currency: order.currency };
    },

    /**
     * Refunds the provider reports (Stripe's charge.refunded: made in its dashboard, or ours echoed
     * back). Each is matched by our id (`emporiumRefundId`) or the provider's id: one of ours still
     * pending is settled as succeeded (with its restock); one already succeeded is skipped; one we
     * do not know is recorded as succeeded, without restock (the provider knows nothing of stock).
     * Never more than was paid is recorded: a report beyond what is left (paid minus the refunds
     * succeeded or pending) is recorded for what is left, or not at all, and returned in `capped`
     * for the caller to log. One transaction under the order's lock, so a report delivered twice at
     * once counts once.
     */
    async recordProviderRefunds(storeId: string, orderId: string, reported: ExternalRefund[]) {
      return inTransaction(db, async (tx) => {
        let order = await lockOrder(tx, storeId, orderId);
        const gateway = deps.refundGateways.find((g) => g.handles(order.payment_method ?? ''));
        const provider = providerOf(order.payment_method, gateway);
        const known = await refunds.findProviderMatches(tx, storeId, order.id, {
          refundIds: reported.flatMap((r) =>
            r.emporiumRefundId && isUuid(r.emporiumRefundId) ? [r.emporiumRefundId] : [],
          ),
          providerRefundIds: reported.map((r) => r.providerRefundId),
        });
        const recorded: refunds.RefundRow[] = [];
        const capped: { providerRefundId: string; reported: number; recorded: number }[] = [];
        // What a refund the order does not hold yet may still add (a pending one is counted already).
        let left = order.amount_paid - (await refunds.commitments(tx, storeId, order.id)).amount;
        for (const report of reported) {
          const match = known.find(
            (k) =>
              (report.emporiumRefundId && k.id === report.emporiumRefundId) ||
              k.provider_refund_id === report.providerRefundId,
          );
          if (match?.status === 'succeeded') continue;
          // What it adds to the refunds held against the payment (one of ours pending: nothing). One
          // of ours is recorded whole or not at all; one we do not know, up to what is left.
          const adds = match?.status === 'pending' ? 0 : (match?.amount ?? report.amount);
          const allowed = adds <= left ? adds : match ? 0 : Math.max(0, left);
          if (allowed < adds) {
            capped.push({ providerRefundId: report.providerRefundId, reported: adds, recorded: allowed });
            if (allowed === 0) continue;
          }
          let refund: refunds.RefundRow | undefined;
          if (match) {
            // Ours: pending (its units still reserved, so restocked now), or failed here while the
            // provider did refund (its units were released: the money is recorded, not the stock).
            refund = await refunds.settleRefund(tx, storeId, match.id, ['pending', 'failed'], {
              status: 'succeeded',
              provider_refund_id: report.providerRefundId,
              failure_reason: null,
            });
            if (!refund) continue;
            order = await applySucceeded(tx, order, refund, {
              restock: match.status === 'pending',
              by: SYSTEM_ACTOR,
            });
          } else {
            if (allowed <= 0) continue;
            refund = await refunds.insertRefund(tx, {
              id: newId(),
              store_id: storeId,
              order_id: order.id,
              amount: allowed,
              reason: report.reason,
              status: 'succeeded',
              provider,
              provider_refund_id: report.providerRefundId,
              restocked: [],
            });
            order = await applySucceeded(tx, order, refund, { restock: false, by: SYSTEM_ACTOR });
          }
          left -= allowed;
          known.push(refund);
          recorded.push(refund);
        }
        return { order: await details(tx, order), recorded, capped };
      });
    },
  };
}
