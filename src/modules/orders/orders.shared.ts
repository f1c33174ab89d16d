import type { Db, Executor, Tx } from '../../platform/db/database.js';
import type { Writer } from '../../platform/db/write-batch.js';
import { conflict, notFound } from '../../platform/http/errors.js';
import { isUuid } from '../../platform/ids.js';
import type { CustomersService } from '../customers/index.js';
import type { InventoryService, StockChange } from '../inventory/index.js';
import type { PricingDeps } from './order-pricing.js';
import { canTransition } from './order-state.js';
import * as repo from './orders.repository.js';
import type { OrderDetails } from './orders.serializers.js';
import type { OrderStatus } from './orders.tables.js';
import type { RefundGateway } from './refund-gateway.js';

/**
 * What the parts of the orders service (placing, state changes, reads) share: their dependencies
 * and the steps each of them takes the same way — the order's lock (first in the lock order of
 * docs/decisions.md), its details, the transition check and the buyer's push.
 */

/** Tells the buyer's devices (push) about a paid, fulfilled or cancelled order, in the order's transaction. */
export type BuyerNotifier = (
  tx: Writer,
  input: {
    storeId: string;
    customerId: string;
    kind: 'paid' | 'fulfilled' | 'cancelled' | 'refunded';
    orderNumber: string;
    /** For `refunded`: the amount, as a decimal string of `currency`, and whether all was refunded. */
    refund?: { amount: string; currency: string; full: boolean };
    tracking?: {
      carrier?: string | null;
      trackingNumber?: string | null;
      trackingUrl?: string | null;
    } | null;
  },
) => Promise<unknown>;

/** The e-mails an order's changes queue (contract §13): the kinds the orders module causes. */
export type OrderMailKind =
  | 'order_confirmation'
  | 'new_order'
  | 'shipping_confirmation'
  | 'order_cancelled'
  | 'refund_issued';

/**
 * Queues an e-mail in the order's transaction, or in its write batch (the notifications module's
 * queueNotification, injected: that module reads orders to render them, so orders cannot import it).
 * `to` omitted: the store's contact e-mail. `dedupeKey`: one message per cause, however often replayed.
 */
export type OrderMailer = (
  tx: Writer,
  input: {
    storeId: string;
    kind: OrderMailKind;
    to?: string | null;
    orderId: string;
    refs?: { fulfillment_id?: string; refund_id?: string };
    dedupeKey: string;
  },
) => Promise<unknown>;

export interface OrdersDeps extends PricingDeps {
  db: Db;
  customers: CustomersService;
  inventory: InventoryService;
  notifyBuyer?: BuyerNotifier;
  mailOrder?: OrderMailer;
  /** Providers that hold the money (Stripe): a refund of their orders goes through them (contract §9). */
  refundGateways: RefundGateway[];
}

export type Tracking = {
  carrier?: string | null;
  tracking_number?: string | null;
  tracking_url?: string | null;
};

export async function notify(
  deps: Pick<OrdersDeps, 'notifyBuyer'>,
  tx: Writer,
  order: repo.OrderRow,
  kind: 'paid' | 'fulfilled' | 'cancelled' | 'refunded',
  tracking?: Tracking,
  refund?: { amount: string; currency: string; full: boolean },
) {
  if (!deps.notifyBuyer || !order.customer_id) return;
  await deps.notifyBuyer(tx, {
    storeId: order.store_id,
    customerId: order.customer_id,
    kind,
    orderNumber: String(order.order_number),
    ...(refund ? { refund } : {}),
    tracking: tracking && {
      carrier: tracking.carrier,
      trackingNumber: tracking.tracking_number,
      trackingUrl: tracking.tracking_url,
    },
  });
}

/**
 * Units of the order's lines go back to stock (cancel, refund), in the caller's transaction. Lines
 * of deleted products or variants are skipped: there is no stock to return them to.
 */
export async function restockLines(
  deps: Pick<OrdersDeps, 'products' | 'inventory'>,
  tx: Tx,
  storeId: string,
  units: { line: repo.LineItemRow; quantity: number }[],
  note: Pick<StockChange, 'source' | 'reason'>,
) {
  const wanted = units.filter((u) => u.quantity > 0);
  if (wanted.length === 0) return;
  const live = await deps.products.lookupForOrder(
    tx,
    storeId,
    wanted.flatMap((u) => (u.line.product_id ? [u.line.product_id] : [])),
  );
  const changes = wanted.flatMap(({ line, quantity }): StockChange[] => {
    const product = line.product_id ? live.get(line.product_id) : undefined;
    if (!product) return [];
    const variantId = line.variant_id && product.variants.has(line.variant_id) ? line.variant_id : null;
    if (line.variant_id && !variantId) return [];
    return [{ productId: product.id, variantId, delta: quantity, ...note }];
  });
  await deps.inventory.applyChanges(tx, storeId, changes);
}

export async function details(tx: Executor, order: repo.OrderRow): Promise<OrderDetails> {
  const [lines, fulfillments] = await Promise.all([
    repo.lineItems(tx, order.store_id, order.id),
    repo.fulfillments(tx, order.store_id, order.id),
  ]);
  return { order, lines, fulfillments };
}

export async function lockOrder(tx: Tx, storeId: string, id: string) {
  const order = isUuid(id) ? await repo.findOrder(tx, storeId, id, { lock: true }) : undefined;
  if (!order) throw notFound('order');
  return order;
}

export function requireTransition(order: repo.OrderRow, to: OrderStatus) {
  if (!canTransition(order.status, to, order.status_before_hold)) {
    throw conflict(`an order that is ${order.status} cannot become ${to}`);
  }
}
