import { rawSql, type SqlText, sqlText } from '../../platform/db/sql-text.js';
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

/** The push a signed-in shopper gets when a product they asked about is back (contract §13). */
export const BACK_IN_STOCK_PUSH = {
  title: 'Back in stock',
  /** Follows the product's name (and its variant's title in brackets). */
  body: ' is back in stock. Order it before it sells out again.',
} as const;

/**
 * The pushes of ended back-in-stock sign-ups, as a data-modifying statement over the CTE `from`,
 * which has a row per sign-up with `store_id`, `customer_id` (null: a guest's, no push), `product_id`,
 * `variant_id`, `product_name`, `product_slug` and `variant_title`. One push per device of each
 * signed-in subscriber whose `backInStock` preference is on (no preferences row: on). It returns a
 * row per push, for the NOTIFY of PUSH_CHANNEL at commit. `from` is a CTE name of the caller's,
 * never input.
 */
export function insertBackInStockPushes(from: string): SqlText {
  const source = rawSql(from);
  return sqlText`
    INSERT INTO push_notifications (id, store_id, customer_id, device_id, title, body, data)
    SELECT emporium_uuid_v7(), d.store_id, d.customer_id, d.id, ${BACK_IN_STOCK_PUSH.title}::text,
      e.product_name || coalesce(' (' || e.variant_title || ')', '') || ${BACK_IN_STOCK_PUSH.body}::text,
      jsonb_strip_nulls(jsonb_build_object('type', 'back_in_stock', 'productId', e.product_id::text,
        'variantId', e.variant_id::text, 'productSlug', e.product_slug::text))
    FROM ${source} e
    JOIN customer_devices d ON d.store_id = e.store_id AND d.customer_id = e.customer_id
    WHERE NOT EXISTS (
      SELECT 1 FROM notification_preferences p
      WHERE p.customer_id = d.customer_id AND p.store_id = d.store_id AND NOT p.back_in_stock
    )
    RETURNING 1`;
}
