import type { Db, Executor } from '../../platform/db/database.js';
import { inTransaction } from '../../platform/db/transaction.js';
import { WriteBatch, type Writer } from '../../platform/db/write-batch.js';
import type { RequestContext } from '../../platform/http/context.js';
import { offsetOf, type PageRequest } from '../../platform/http/envelopes.js';
import { conflict, invalidRequest, notFound } from '../../platform/http/errors.js';
import { type IdempotencyClaim, recordIdempotentResource } from '../../platform/idempotency.js';
import { isUuid, newId } from '../../platform/ids.js';
import type { CustomersService, NewCustomer } from '../customers/index.js';
import type { InventoryService } from '../inventory/index.js';
import {
  amountOf,
  diff,
  type OrderChangeSource,
  recordOrderCancelled,
  recordOrderCreated,
  recordOrderPaid,
  recordOrderUpdated,
} from './order-events.js';
import { type CartItem, type FieldNames, type PricingDeps, priceCart } from './order-pricing.js';
import { canTransition, isEditable } from './order-state.js';
import * as repo from './orders.repository.js';
import type { OrderDetails } from './orders.serializers.js';
import type { Address, OrderStatus } from './orders.tables.js';
import { paymentStatusOf } from './totals.js';

/** Tells the buyer's devices (push) about a paid, fulfilled or cancelled order, in the order's transaction. */
export type BuyerNotifier = (
  tx: Writer,
  input: {
    storeId: string;
    customerId: string;
    kind: 'paid' | 'fulfilled' | 'cancelled';
    orderNumber: string;
    tracking?: {
      carrier?: string | null;
      trackingNumber?: string | null;
      trackingUrl?: string | null;
    } | null;
  },
) => Promise<unknown>;

export interface OrdersDeps extends PricingDeps {
  db: Db;
  customers: CustomersService;
  inventory: InventoryService;
  notifyBuyer?: BuyerNotifier;
}

export interface PlaceOrderInput {
  customer: NewCustomer & { id?: string };
  items: CartItem[];
  couponCode?: string | null;
  shippingAddress?: Address | null;
  notes?: string | null;
  paymentMethod: string | null;
  /** Shoppers may only buy active products; merchants may also order drafts. */
  activeOnly: boolean;
  fields: FieldNames;
  /**
   * Takes the payment for `total` (minor units) and returns the amount paid; throws to refuse
   * (e.g. 402). Runs inside the transaction after pricing and before any stock moves.
   */
  settle(total: number, currency: string): Promise<number>;
  /** The request's Idempotency-Key: the order is recorded under it in the order's transaction. */
  idempotency?: IdempotencyClaim;
}

export interface OrderUpdate {
  status?: OrderStatus;
  notes?: string | null;
  shipping_address?: Address | null;
}

const sourceOf = (ctx: RequestContext): OrderChangeSource => ctx.source;

export function createOrdersService(deps: OrdersDeps) {
  const { db, customers, inventory } = deps;

  async function notify(
    tx: Writer,
    order: repo.OrderRow,
    kind: 'paid' | 'fulfilled' | 'cancelled',
    tracking?: { carrier?: string | null; tracking_number?: string | null; tracking_url?: string | null },
  ) {
    if (!deps.notifyBuyer || !order.customer_id) return;
    await deps.notifyBuyer(tx, {
      storeId: order.store_id,
      customerId: order.customer_id,
      kind,
      orderNumber: String(order.order_number),
      tracking: tracking && {
        carrier: tracking.carrier,
        trackingNumber: tracking.tracking_number,
        trackingUrl: tracking.tracking_url,
      },
    });
  }

  async function details(tx: Executor, order: repo.OrderRow): Promise<OrderDetails> {
    const [lines, fulfillments] = await Promise.all([
      repo.lineItems(tx, order.store_id, order.id),
      repo.fulfillments(tx, order.store_id, order.id),
    ]);
    return { order, lines, fulfillments };
  }

  async function lockOrder(tx: Executor, storeId: string, id: string) {
    const order = isUuid(id) ? await repo.findOrder(tx, storeId, id, { lock: true }) : undefined;
    if (!order) throw notFound('order');
    return order;
  }

  function requireTransition(order: repo.OrderRow, to: OrderStatus) {
    if (!canTransition(order.status, to, order.status_before_hold)) {
      throw conflict(`an order that is ${order.status} cannot become ${to}`);
    }
  }

  /** The order's line items go back to stock (cancel with restock). Deleted products are skipped. */
  async function restock(tx: Executor, storeId: string, lines: repo.LineItemRow[]) {
    const live = await deps.products.lookupForOrder(
      tx,
      storeId,
      lines.flatMap((l) => (l.product_id ? [l.product_id] : [])),
    );
    const changes = lines.flatMap((line) => {
      const product = line.product_id ? live.get(line.product_id) : undefined;
      if (!product) return [];
      const variantId = line.variant_id && product.variants.has(line.variant_id) ? line.variant_id : null;
      if (line.variant_id && !variantId) return [];
      return [
        {
          productId: product.id,
          variantId,
          delta: line.quantity,
          source: 'cancel' as const,
          reason: 'order cancelled',
        },
      ];
    });
    await inventory.applyChanges(tx, storeId, changes);
  }

  /**
   * Places an order in the caller's transaction: buyer, prices, discount, payment, stock (taken
   * atomically: the last unit goes to exactly one order), order number, rows, discount use, events.
   */
  async function placeOrder(tx: Executor, storeId: string, input: PlaceOrderInput): Promise<OrderDetails> {
    // The buyer's row is locked first (by the upsert, or explicitly), before stock, discount and
    // order counter: the lock order of docs/decisions.md.
    const buyer = input.customer.id
      ? await customers.lockById(tx, storeId, input.customer.id)
      : await customers.findOrCreate(tx, storeId, input.customer);
    if (!buyer) throw notFound('customer');
    const priced = await priceCart(deps, tx, storeId, {
      items: input.items,
      couponCode: input.couponCode,
      customerId: buyer.id,
      activeOnly: input.activeOnly,
      fields: input.fields,
    });
    const { quote, store, lines, discount } = priced;
    const amountPaid = await input.settle(quote.total, store.currency);

    await inventory.applyChanges(
      tx,
      storeId,
      lines.map((line) => ({
        productId: line.productId,
        variantId: line.variantId,
        delta: -line.quantity,
        source: 'order' as const,
      })),
    );
    const orderId = newId();
    if (discount)
      await deps.discounts.redeem(tx, storeId, discount, {
        customerId: buyer.id,
        orderId,
        field: input.fields.coupon,
      });

    const now = new Date();
    const paid = amountPaid >= quote.total && quote.total > 0;
    const order: repo.OrderRow = {
      id: orderId,
      store_id: storeId,
      order_number: await repo.takeOrderNumber(tx, storeId),
      status: paid ? 'processing' : 'pending',
      status_before_hold: null,
      payment_status: paymentStatusOf(quote.total, amountPaid),
      fulfillment_status: 'unfulfilled',
      currency: store.currency,
      subtotal: quote.subtotal,
      discount_amount: quote.discount,
      shipping_amount: quote.shipping,
      tax_amount: quote.tax,
      total: quote.total,
      amount_paid: amountPaid,
      coupon_code: discount?.code ?? null,
      discount_id: discount?.discountId ?? null,
      payment_method: input.paymentMethod,
      customer_id: buyer.id,
      customer_email: buyer.email,
      customer_first_name: input.customer.first_name ?? buyer.first_name,
      customer_last_name: input.customer.last_name ?? buyer.last_name,
      shipping_address: input.shippingAddress ?? null,
      notes: input.notes ?? null,
      cancel_reason: null,
      cancelled_at: null,
      paid_at: paid ? now : null,
      fulfilled_at: null,
      created_at: now,
      updated_at: now,
    };
    // The order, its lines, the buyer's totals, the events and the buyer's pushes: one statement.
    const writes = new WriteBatch(tx);
    await repo.insertOrder(writes, {
      ...order,
      shipping_address: order.shipping_address ? JSON.stringify(order.shipping_address) : null,
    });
    const lineRows: repo.LineItemRow[] = lines.map((line, position) => ({
      id: newId(),
      store_id: storeId,
      order_id: orderId,
      product_id: line.productId,
      variant_id: line.variantId,
      name: line.name,
      variant_title: line.variantTitle,
      sku: line.sku,
      quantity: line.quantity,
      price: line.price,
      position,
    }));
    await repo.insertLineItems(writes, lineRows);
    await customers.addOrderStats(writes, storeId, buyer.id, { orders: 1, spent: amountPaid });
    await recordOrderCreated(writes, order, lineRows);
    await recordIdempotentResource(tx, input.idempotency, { type: 'order', id: orderId });
    if (paid) {
      await recordOrderPaid(writes, order, lineRows);
      await notify(writes, order, 'paid');
    }
    await writes.run();
    return { order, lines: lineRows, fulfillments: [] };
  }

  /** Takes a payment on the order (locked by the caller); the order is paid when nothing is owed. */
  async function collect(
    tx: Executor,
    order: repo.OrderRow,
    amount: number,
    paymentMethod: string | null,
    source: OrderChangeSource,
  ) {
    const amountPaid = order.amount_paid + amount;
    const paymentStatus = paymentStatusOf(order.total, amountPaid);
    const nowPaid = paymentStatus === 'paid';
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
    await recordOrderUpdated(
      tx,
      updated,
      diff(
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
      ),
      source,
    );
    if (nowPaid) {
      await recordOrderPaid(tx, updated, lines);
      await notify(tx, updated, 'paid');
    }
    return updated;
  }

  async function fulfillLocked(
    tx: Executor,
    order: repo.OrderRow,
    tracking: { carrier?: string | null; tracking_number?: string | null; tracking_url?: string | null },
    source: OrderChangeSource,
  ) {
    if (order.fulfillment_status === 'fulfilled') throw conflict('the order is already fulfilled');
    requireTransition(order, 'completed');
    await repo.insertFulfillment(tx, {
      id: newId(),
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
    await recordOrderUpdated(
      tx,
      updated,
      diff(
        { status: order.status, fulfillmentStatus: order.fulfillment_status },
        { status: updated.status, fulfillmentStatus: updated.fulfillment_status },
      ),
      source,
    );
    await notify(tx, updated, 'fulfilled', tracking);
    return updated;
  }

  async function cancelLocked(
    tx: Executor,
    order: repo.OrderRow,
    options: { reason?: string | null; restock?: boolean },
    source: OrderChangeSource,
  ) {
    if (order.status === 'cancelled') throw conflict('the order is already cancelled');
    if (order.fulfillment_status === 'fulfilled') throw conflict('a fulfilled order cannot be cancelled');
    requireTransition(order, 'cancelled');
    // Lock order (docs/decisions.md): the buyer, then the stock, then the order's own write. Taking
    // the stock first deadlocked against checkouts of the same buyer, which lock buyer then stock.
    if (order.customer_id && order.amount_paid > 0)
      await customers.addOrderStats(tx, order.store_id, order.customer_id, {
        orders: 0,
        spent: -order.amount_paid,
      });
    if (options.restock !== false)
      await restock(tx, order.store_id, await repo.lineItems(tx, order.store_id, order.id));
    const updated = await repo.updateOrder(tx, order.store_id, order.id, {
      status: 'cancelled',
      status_before_hold: null,
      cancel_reason: options.reason ?? null,
      cancelled_at: new Date(),
      payment_status: order.amount_paid > 0 ? 'refund_due' : order.payment_status,
    });
    await recordOrderUpdated(
      tx,
      updated,
      diff(
        { status: order.status, paymentStatus: order.payment_status },
        { status: updated.status, paymentStatus: updated.payment_status },
      ),
      source,
    );
    await recordOrderCancelled(tx, updated);
    await notify(tx, updated, 'cancelled');
    return updated;
  }

  const withDetails = async (tx: Executor, order: repo.OrderRow) => details(tx, order);

  return {
    placeOrder,
    details,
    lockOrder,

    async list(ctx: RequestContext, page: PageRequest, filter: repo.OrderFilter) {
      if (filter.customerId && !isUuid(filter.customerId)) return { rows: [], total: 0 };
      return repo.listOrders(db, ctx.storeId, filter, { offset: offsetOf(page), limit: page.limit });
    },

    async get(ctx: RequestContext, id: string) {
      const order = isUuid(id) ? await repo.findOrder(db, ctx.storeId, id) : undefined;
      if (!order) throw notFound('order');
      return details(db, order);
    },

    /** A customer's own order by its number; another customer's is not found. */
    async getForCustomer(storeId: string, customerId: string, orderNumber: number) {
      const order = await repo.findOrderByNumber(db, storeId, orderNumber, customerId);
      if (!order) throw notFound('order');
      return details(db, order);
    },

    async listForCustomer(storeId: string, customerId: string, page: PageRequest) {
      return repo.listOrders(db, storeId, { customerId }, { offset: offsetOf(page), limit: page.limit });
    },

    /** POST /orders: a manual or imported order, under the same stock and discount rules as checkout. */
    create(
      ctx: RequestContext,
      input: Omit<PlaceOrderInput, 'settle' | 'activeOnly' | 'fields'> & { markPaid?: boolean },
    ) {
      return inTransaction(db, (tx) =>
        placeOrder(tx, ctx.storeId, {
          ...input,
          idempotency: ctx.idempotency,
          activeOnly: false,
          fields: { items: 'items', productId: 'product_id', variantId: 'variant_id', coupon: 'coupon_code' },
          settle: async (total) => (input.markPaid ? total : 0),
        }),
      );
    },

    /**
     * PATCH: notes and address, and status through the same rules as the actions: processing is
     * mark-paid (full balance), completed is fulfil, cancelled is cancel (with restock).
     */
    update(ctx: RequestContext, id: string, patch: OrderUpdate) {
      return inTransaction(db, async (tx) => {
        let order = await lockOrder(tx, ctx.storeId, id);
        const source = sourceOf(ctx);
        if (order.status === 'cancelled' && patch.shipping_address !== undefined)
          throw conflict('the address of a cancelled order cannot change');
        // The status action first: it may lock the buyer and the stock, which come before the
        // order's own writes in the lock order (docs/decisions.md).
        const to = patch.status;
        if (to !== undefined && to !== order.status) {
          requireTransition(order, to);
          if (to === 'cancelled') order = await cancelLocked(tx, order, {}, source);
          else if (to === 'completed') order = await fulfillLocked(tx, order, {}, source);
          else if (to === 'processing' && order.status === 'pending') {
            const balance = order.total - order.amount_paid;
            if (balance <= 0) throw conflict('the order has no balance to collect');
            order = await collect(tx, order, balance, null, source);
          } else {
            const updated = await repo.updateOrder(tx, ctx.storeId, order.id, {
              status: to,
              status_before_hold: to === 'on_hold' ? order.status : null,
            });
            await recordOrderUpdated(tx, updated, diff({ status: order.status }, { status: to }), source);
            order = updated;
          }
        }
        const fields: Partial<repo.OrderRow> = {};
        if (patch.notes !== undefined) fields.notes = patch.notes;
        if (patch.shipping_address !== undefined) fields.shipping_address = patch.shipping_address;
        if (Object.keys(fields).length) {
          const updated = await repo.updateOrder(tx, ctx.storeId, order.id, {
            ...(fields.notes !== undefined ? { notes: fields.notes } : {}),
            ...(fields.shipping_address !== undefined
              ? { shipping_address: fields.shipping_address ? JSON.stringify(fields.shipping_address) : null }
              : {}),
          });
          await recordOrderUpdated(
            tx,
            updated,
            diff(
              { notes: order.notes, shippingAddress: order.shipping_address },
              { notes: updated.notes, shippingAddress: updated.shipping_address },
            ),
            source,
          );
          order = updated;
        }
        return withDetails(tx, order);
      });
    },

    fulfill(
      ctx: RequestContext,
      id: string,
      tracking: { carrier?: string | null; tracking_number?: string | null; tracking_url?: string | null },
    ) {
      return inTransaction(db, async (tx) => {
        const order = await lockOrder(tx, ctx.storeId, id);
        if (order.status === 'cancelled') throw conflict('a cancelled order cannot be fulfilled');
        return withDetails(tx, await fulfillLocked(tx, order, tracking, sourceOf(ctx)));
      });
    },

    cancel(ctx: RequestContext, id: string, options: { reason?: string | null; restock?: boolean }) {
      return inTransaction(db, async (tx) => {
        const order = await lockOrder(tx, ctx.storeId, id);
        return withDetails(tx, await cancelLocked(tx, order, options, sourceOf(ctx)));
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
        return withDetails(tx, await collect(tx, order, amount, input.payment_method ?? null, sourceOf(ctx)));
      });
    },

    isEditable,
  };
}

export type OrdersService = ReturnType<typeof createOrdersService>;
