import { WriteBatch, type Writer } from '../../platform/db/write-batch.js';
import * as repo from './push.repository.js';

export type OrderPushKind = 'paid' | 'fulfilled' | 'cancelled' | 'refunded';

export interface OrderTracking {
  carrier?: string | null;
  trackingNumber?: string | null;
  trackingUrl?: string | null;
}

export interface OrderPushInput {
  storeId: string;
  customerId: string;
  kind: OrderPushKind;
  /** The store's order number, as the customer sees it ("1001"; a leading "#" is ignored). */
  orderNumber: string;
  /** For `fulfilled`: the shipment's tracking, when there is one. */
  tracking?: OrderTracking | null;
  /** For `refunded`: the amount (a decimal string of `currency`) and whether the whole payment went back. */
  refund?: { amount: string; currency: string; full: boolean } | null;
}

export interface PushContent {
  title: string;
  body: string;
  /** String values only (FCM's rule): what the app needs to open the order. */
  data: Record<string, string>;
}

/** The notification a customer reads for an order update (pure). */
export function orderPushContent(
  input: Pick<OrderPushInput, 'kind' | 'orderNumber' | 'tracking' | 'refund'>,
): PushContent {
  const number = input.orderNumber.replace(/^#/, '');
  const data: Record<string, string> = { type: 'order_update', kind: input.kind, orderNumber: number };
  switch (input.kind) {
    case 'paid':
      return {
        title: `Order #${number} is confirmed`,
        body: 'We have received your payment. We will let you know when it ships.',
        data,
      };
    case 'refunded': {
      const refund = input.refund;
      if (refund) {
        data.amount = refund.amount;
        data.currency = refund.currency;
      }
      return {
        title:
          refund?.full === false ? `Order #${number} was partly refunded` : `Order #${number} was refunded`,
        body: refund
          ? `A refund of ${refund.amount} ${refund.currency} is on its way to you.`
          : 'A refund is on its way to you.',
        data,
      };
    }
    case 'cancelled':
      return {
        title: `Order #${number} was cancelled`,
        body: 'Your order has been cancelled. Contact the store if you have any questions.',
        data,
      };
    case 'fulfilled': {
      const carrier = input.tracking?.carrier?.trim() || undefined;
      const trackingNumber = input.tracking?.trackingNumber?.trim() || undefined;
      const trackingUrl = input.tracking?.trackingUrl?.trim() || undefined;
      if (carrier) data.carrier = carrier;
      if (trackingNumber) data.trackingNumber = trackingNumber;
      if (trackingUrl) data.trackingUrl = trackingUrl;
      let body: string;
      if (carrier && trackingNumber) body = `Shipped with ${carrier}, tracking number ${trackingNumber}.`;
      else if (carrier) body = `Shipped with ${carrier}.`;
      else if (trackingNumber) body = `Shipped, tracking number ${trackingNumber}.`;
      else body = 'Your order has shipped.';
      return { title: `Order #${number} is on its way`, body, data };
    }
  }
}

/**
 * Queues an order-update push for each of the customer's devices in the store, inside the caller's
 * transaction, unless the customer turned order updates off. The push worker is woken at commit, and
 * only if something was queued; nothing is queued, and no one is woken, if the transaction rolls back.
 * Given a WriteBatch (an order's writes), the push joins the batch's single statement.
 */
export async function queueOrderPush(to: Writer, input: OrderPushInput): Promise<void> {
  const batch = to instanceof WriteBatch ? to : new WriteBatch(to);
  const write = batch.add(
    repo.insertOrderPushes({
      storeId: input.storeId,
      customerId: input.customerId,
      ...orderPushContent(input),
    }),
  );
  batch.notifyAtCommit(repo.PUSH_CHANNEL, write);
  if (batch !== to) await batch.run();
}
