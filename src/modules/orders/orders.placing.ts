import type { Tx } from '../../platform/db/database.js';
import { readTogether } from '../../platform/db/read-together.js';
import { inTransaction } from '../../platform/db/transaction.js';
import { LATE_NUMBER, WriteBatch } from '../../platform/db/write-batch.js';
import type { RequestContext } from '../../platform/http/context.js';
import { withStoredCountry } from '../../platform/http/country-input.js';
import { notFound } from '../../platform/http/errors.js';
import { type IdempotencyClaim, recordIdempotentResource } from '../../platform/idempotency.js';
import { newId } from '../../platform/ids.js';
import type { NewCustomer } from '../customers/index.js';
import { amountOf, recordOrderCreated, recordOrderPaid } from './order-events.js';
import { actorOf, type OrderActor, SYSTEM_ACTOR } from './order-history.js';
import { recordHistory } from './order-history.repository.js';
import { type CartItem, type FieldNames, MERCHANT_FIELDS, priceCart } from './order-pricing.js';
import { mailConfirmation, mailNewOrder } from './orders.mail.js';
import * as repo from './orders.repository.js';
import type { OrderDetails } from './orders.serializers.js';
import { notify, type OrdersDeps } from './orders.shared.js';
import type { Address } from './orders.tables.js';
import { paymentStatusOf } from './totals.js';

export interface PlaceOrderInput {
  customer: NewCustomer & { id?: string };
  items: CartItem[];
  couponCode?: string | null;
  shippingAddress?: Address | null;
  /** The shipping rate chosen among the address's options (§12); without it the cheapest. */
  shippingRateId?: string | null;
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
  /**
   * A provider that confirms later (Stripe) will be paid after commit: the unpaid order waits in
   * payment_status `pending` instead of `unpaid`.
   */
  awaitsPayment?: boolean;
  /** Who places it, for the order's history: the shopper, the merchant's key or user; else the system. */
  by?: OrderActor;
  /**
   * Queue the buyer's order_confirmation (checkout and carts always; POST /orders when asked). The
   * store's new_order is queued for every order placed here. An order that awaits a provider's
   * payment gets both when the payment succeeds (recordProviderPayment), not now.
   */
  sendReceipt?: boolean;
}

/** Placing orders: checkout's path (placeOrder, in its transaction) and the merchant's POST /orders. */
export function createOrderPlacing(deps: OrdersDeps) {
  const { db, customers, inventory } = deps;

  /**
   * Places an order in the caller's transaction: buyer, prices, discount, payment, stock (taken
   * atomically: the last unit goes to exactly one order), order number, rows, discount use, events.
   */
  async function placeOrder(tx: Tx, storeId: string, input: PlaceOrderInput): Promise<OrderDetails> {
    // The buyer's row is locked first (by the upsert, or explicitly), before stock, discount and
    // order counter: the lock order of docs/decisions.md. The catalogue facts and the automatic
    // discounts come in the same statement (readTogether): they do not depend on the buyer's row.
    const buyerQueries = customers.buyerQueries(tx, storeId, input.customer);
    if (!buyerQueries) throw notFound('customer');
    const readAt = new Date();
    const withCode = Boolean(input.couponCode?.trim());
    const read = await readTogether(tx, {
      buyer: { query: buyerQueries.upsert },
      buyerNow: buyerQueries.current && { query: buyerQueries.current },
      catalogue: {
        query: deps.products.lookupForOrderQuery(
          storeId,
          input.items.map((i) => i.productId),
        ),
      },
      automatic: withCode ? undefined : deps.discounts.automaticQuery(tx, storeId, readAt),
    });
    const buyer = await customers.buyerFromRead(tx, storeId, input.customer, {
      upsert: read.buyer ?? [],
      current: read.buyerNow,
    });
    if (!buyer) throw notFound('customer');
    const priced = await priceCart(deps, tx, storeId, {
      items: input.items,
      couponCode: input.couponCode,
      customerId: buyer.id,
      activeOnly: input.activeOnly,
      fields: input.fields,
      shippingAddress: input.shippingAddress ?? null,
      shippingRateId: input.shippingRateId ?? null,
      requireAddress: true,
      prefetched: { catalogue: read.catalogue ?? [], automatic: read.automatic, now: readAt },
    });
    const { quote, store, lines, discount, regional } = priced;
    const amountPaid = await input.settle(quote.total, store.currency);

    const orderId = newId();
    const now = new Date();
    const paid = amountPaid >= quote.total && quote.total > 0;
    const order: repo.OrderRow = {
      id: orderId,
      store_id: storeId,
      // Taken from the counter after the stock (and the discount): filled in below.
      order_number: 0,
      status: paid ? 'processing' : 'pending',
      status_before_hold: null,
      payment_status:
        input.awaitsPayment && amountPaid === 0 && quote.total > 0
          ? 'pending'
          : paymentStatusOf(quote.total, amountPaid),
      fulfillment_status: 'unfulfilled',
      currency: store.currency,
      subtotal: quote.subtotal,
      discount_amount: quote.discount,
      shipping_amount: quote.shipping,
      tax_amount: quote.tax,
      total: quote.total,
      amount_paid: amountPaid,
      amount_refunded: 0,
      coupon_code: discount?.code ?? null,
      discount_id: discount?.discountId ?? null,
      payment_method: input.paymentMethod,
      customer_id: buyer.id,
      customer_email: buyer.email,
      customer_first_name: input.customer.first_name ?? buyer.first_name,
      customer_last_name: input.customer.last_name ?? buyer.last_name,
      shipping_address: input.shippingAddress ? withStoredCountry(input.shippingAddress) : null,
      notes: input.notes ?? null,
      shipping_rate_id: regional.shippingMethod?.rateId ?? null,
      shipping_method_name: regional.shippingMethod?.name ?? null,
      tax_lines: regional.taxLines,
      taxes_included: regional.taxesIncluded,
      cancel_reason: null,
      cancelled_at: null,
      paid_at: paid ? now : null,
      fulfilled_at: null,
      created_at: now,
      updated_at: now,
    };
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
      tax_amount: line.taxAmount,
    }));
    /** The order, its lines, the buyer's totals, the events and the buyer's pushes, for `number`. */
    const stage = async (number: number) => {
      order.order_number = number;
      const writes = new WriteBatch(tx);
      await repo.insertOrder(writes, {
        ...order,
        shipping_address: order.shipping_address ? JSON.stringify(order.shipping_address) : null,
        tax_lines: JSON.stringify(order.tax_lines),
      });
      await repo.insertLineItems(writes, lineRows);
      await customers.addOrderStats(writes, storeId, buyer.id, { orders: 1, spent: amountPaid });
      await recordOrderCreated(writes, order, lineRows);
      const by = input.by ?? SYSTEM_ACTOR;
      const total = amountOf(order, order.total);
      await recordHistory(writes, order, by, 'created', {
        data: { total, item_count: lineRows.reduce((sum, line) => sum + line.quantity, 0) },
      });
      if (paid) {
        await recordOrderPaid(writes, order, lineRows);
        await recordHistory(writes, order, by, 'paid', {
          data: { amount: amountOf(order, amountPaid), payment_method: order.payment_method },
        });
        await notify(deps, writes, order, 'paid');
      }
      if (order.payment_status !== 'pending') {
        if (input.sendReceipt) await mailConfirmation(deps, writes, order);
        await mailNewOrder(deps, writes, order);
      }
      return writes;
    };
    const changes = lines.map((line) => ({
      productId: line.productId,
      variantId: line.variantId,
      delta: -line.quantity,
      source: 'order' as const,
    }));

    if (!discount) {
      // Without a discount to count, the order number is taken in the last stock statement (the
      // counter comes right after the stock in the lock order), and the order's writes, built and
      // compiled before it with the number left as LATE_NUMBER, go in that statement too: they run
      // only when the stock moved. The row locks are held for that one statement and the COMMIT.
      const writes = await stage(LATE_NUMBER as unknown as number);
      const taken = (await inventory.applyChanges(tx, storeId, changes, {
        query: repo.takeOrderNumberAfterStock(storeId),
        after: writes.gated('tail'),
      })) as { number: number | string } | undefined;
      if (!taken) throw new Error('placeOrder: the stock moved without an order number');
      order.order_number = Number(taken.number);
    } else {
      // With a discount: stock, then the discount's use, then the counter (the lock order).
      await inventory.applyChanges(tx, storeId, changes);
      await deps.discounts.redeem(tx, storeId, discount, {
        customerId: buyer.id,
        orderId,
        field: input.fields.coupon,
      });
      const writes = await stage(await repo.takeOrderNumber(tx, storeId));
      await writes.run();
    }
    await recordIdempotentResource(tx, input.idempotency, { type: 'order', id: orderId });
    return { order, lines: lineRows, fulfillments: [] };
  }

  return {
    placeOrder,

    /** POST /orders: a manual or imported order, under the same stock and discount rules as checkout. */
    create(
      ctx: RequestContext,
      input: Omit<PlaceOrderInput, 'settle' | 'activeOnly' | 'fields'> & { markPaid?: boolean },
    ) {
      return inTransaction(db, (tx) =>
        placeOrder(tx, ctx.storeId, {
          ...input,
          idempotency: ctx.idempotency,
          by: actorOf(ctx),
          activeOnly: false,
          fields: MERCHANT_FIELDS,
          settle: async (total) => (input.markPaid ? total : 0),
        }),
      );
    },
  };
}
