import { V7Generator } from 'uuidv7';
import {
  type Address,
  type OrderStatus,
  type PaymentStatus,
  quoteOf,
  type StorePricing,
} from '../modules/orders/index.js';
import { maybeRefund, type SampleRefund } from './sample-refunds.js';

/**
 * Plausible order history, generated batch by batch without touching the database: numbers
 * continue from the store's counter, creation times rise with the number over the period (growing
 * towards the end), statuses depend on age, and amounts follow the store's own pricing rules.
 */

/** What an order line can be: a product without variants, or one variant of a product. */
export interface Sellable {
  productId: string;
  variantId: string | null;
  name: string;
  variantTitle: string | null;
  sku: string | null;
  /** Minor units. */
  price: number;
}

export interface Buyer {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
}

export interface SampleOrder {
  id: string;
  store_id: string;
  order_number: number;
  status: OrderStatus;
  status_before_hold: OrderStatus | null;
  payment_status: PaymentStatus;
  fulfillment_status: 'unfulfilled' | 'fulfilled';
  currency: string;
  subtotal: number;
  discount_amount: number;
  shipping_amount: number;
  tax_amount: number;
  total: number;
  amount_paid: number;
  amount_refunded: number;
  coupon_code: null;
  discount_id: null;
  payment_method: string;
  customer_id: string;
  customer_email: string;
  customer_first_name: string | null;
  customer_last_name: string | null;
  /** JSON text, as the orders repository stores it. */
  shipping_address: string;
  notes: string | null;
  cancel_reason: string | null;
  cancelled_at: Date | null;
  paid_at: Date | null;
  fulfilled_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface SampleLineItem {
  id: string;
  store_id: string;
  order_id: string;
  product_id: string;
  variant_id: string | null;
  name: string;
  variant_title: string | null;
  sku: string | null;
  quantity: number;
  price: number;
  position: number;
}

export interface SampleFulfillment {
  id: string;
  store_id: string;
  order_id: string;
  carrier: string;
  tracking_number: string;
  tracking_url: string;
  created_at: Date;
}

export interface SampleOrderBatch {
  orders: SampleOrder[];
  lines: SampleLineItem[];
  fulfillments: SampleFulfillment[];
  refunds: SampleRefund[];
}

export interface OrderHistoryOptions {
  storeId: string;
  currency: string;
  pricing: StorePricing;
  sellables: readonly Sellable[];
  buyers: readonly Buyer[];
  /** The number of the first order (the store's counter). */
  firstNumber: number;
  count: number;
  /** The period the orders are spread over (ms since the epoch); `to` is "now" for their statuses. */
  fromMs: number;
  toMs: number;
  /** Same seed, same history (apart from ids). */
  seed?: number;
}

const HOUR = 3600_000;
const DAY = 24 * HOUR;

const CITIES: ReadonlyArray<
  readonly [city: string, region: string | null, postalCode: string, country: string]
> = [
  ['Springfield', 'IL', '62701', 'US'],
  ['Portland', 'OR', '97205', 'US'],
  ['Austin', 'TX', '78701', 'US'],
  ['Brooklyn', 'NY', '11201', 'US'],
  ['Toronto', 'ON', 'M5V 2T6', 'CA'],
  ['London', null, 'EC1A 1BB', 'GB'],
  ['Manchester', null, 'M1 1AE', 'GB'],
  ['Berlin', null, '10115', 'DE'],
  ['Lyon', null, '69001', 'FR'],
  ['Amsterdam', null, '1012 JS', 'NL'],
];
const STREETS = [
  'Main St',
  'Oak Ave',
  'Market St',
  'High St',
  'Station Rd',
  'Elm St',
  'Park Lane',
  'Mill Rd',
];
const CARRIERS: ReadonlyArray<readonly [name: string, trackingUrl: string]> = [
  ['UPS', 'https://www.ups.com/track?tracknum='],
  ['USPS', 'https://tools.usps.com/go/TrackConfirmAction?tLabels='],
  ['FedEx', 'https://www.fedex.com/fedextrack/?trknbr='],
  ['DHL', 'https://www.dhl.com/en/express/tracking.html?AWB='],
];
const CANCEL_REASONS = ['customer request', 'payment not received', 'out of stock', 'fraud suspected'];
const NOTES = ['Gift wrap, please', 'Leave at the back door', 'Please ship together', 'Birthday present'];

/** mulberry32: a small, fast, seedable generator (not for secrets: these are demo orders). */
function random(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Picks by weight: `[[value, weight], …]` with weights summing to 1. */
function weighted<T>(r: number, choices: ReadonlyArray<readonly [T, number]>): T {
  let acc = 0;
  for (const [value, weight] of choices) {
    acc += weight;
    if (r < acc) return value;
  }
  return (choices[choices.length - 1] as readonly [T, number])[0];
}

type Outcome =
  | 'pending'
  | 'processing'
  | 'completed'
  | 'hold_paid'
  | 'hold_unpaid'
  | 'cancel_unpaid'
  | 'cancel_paid';

/** Recent orders are still open; older ones are nearly all fulfilled, a few cancelled. */
const RECENT: ReadonlyArray<readonly [Outcome, number]> = [
  ['pending', 0.15],
  ['processing', 0.55],
  ['completed', 0.22],
  ['hold_paid', 0.02],
  ['hold_unpaid', 0.01],
  ['cancel_unpaid', 0.03],
  ['cancel_paid', 0.02],
];
const OLDER: ReadonlyArray<readonly [Outcome, number]> = [
  ['pending', 0.015],
  ['processing', 0.02],
  ['completed', 0.9],
  ['hold_paid', 0.01],
  ['hold_unpaid', 0.005],
  ['cancel_unpaid', 0.025],
  ['cancel_paid', 0.025],
];
const LINE_COUNT: ReadonlyArray<readonly [number, number]> = [
  [1, 0.5],
  [2, 0.28],
  [3, 0.14],
  [4, 0.08],
];
const QUANTITY: ReadonlyArray<readonly [number, number]> = [
  [1, 0.8],
  [2, 0.15],
  [3, 0.05],
];

/**
 * Order history for one store, produced in batches (`next(size)`) so a million orders never sit in
 * memory at once. Order n of `count` is created at the n-th quantile of a density rising linearly
 * to twice its start over the period, with jitter; times strictly increase with the number.
 */
export function createOrderHistory(options: OrderHistoryOptions) {
  if (options.sellables.length === 0) throw new Error('order history needs at least one product');
  if (options.buyers.length === 0) throw new Error('order history needs at least one customer');
  const rand = random(options.seed ?? 20261123);
  // Math.random for the random bits: unique enough for ids, and far cheaper than a crypto call per id.
  const ids = new V7Generator({ nextUint32: () => Math.floor(Math.random() * 0x1_0000_0000) });
  const idAt = (ms: number) => ids.generateOrResetWithTs(ms).toString();
  const { storeId, currency, pricing, sellables, buyers, count } = options;
  const span = Math.max(0, options.toMs - options.fromMs);
  const spacing = count > 0 ? span / count : 0;
  // Density 1 + g·x over the period (x in 0..1): the time of quantile u solves x + g·x²/2 = u·(1 + g/2).
  const growth = 1;
  const timeOf = (u: number) => (-1 + Math.sqrt(1 + 2 * growth * u * (1 + growth / 2))) / growth;
  // A loyal tenth of the buyers places about a third of the orders.
  const loyal = Math.max(1, Math.floor(buyers.length / 10));
  let made = 0;
  let previousMs = options.fromMs - 1;

  function createdAtOf(n: number): number {
    const u = (n + 0.5) / Math.max(1, count);
    const ms = options.fromMs + timeOf(u) * span + (rand() - 0.5) * spacing;
    const bounded = Math.min(options.toMs, Math.max(previousMs + 1, Math.round(ms)));
    previousMs = bounded;
    return bounded;
  }

  function addressOf(buyer: Buyer): string {
    const [city, region, postalCode, country] = CITIES[
      Math.floor(rand() * CITIES.length)
    ] as (typeof CITIES)[0];
    const address: Address = {
      first_name: buyer.first_name,
      last_name: buyer.last_name,
      line1: `${1 + Math.floor(rand() * 400)} ${STREETS[Math.floor(rand() * STREETS.length)]}`,
      line2: rand() < 0.15 ? `Apt ${1 + Math.floor(rand() * 40)}` : null,
      city,
      region,
      postal_code: postalCode,
      country,
      phone: null,
    };
    return JSON.stringify(address);
  }

  /** Popular products sell more: the index is skewed towards the start of the list. */
  function linesOf(): Sellable[] {
    const wanted = Math.min(weighted(rand(), LINE_COUNT), sellables.length);
    const picked = new Set<Sellable>();
    for (let tries = 0; picked.size < wanted && tries < wanted * 4; tries++) {
      picked.add(sellables[Math.floor(rand() ** 2 * sellables.length)] as Sellable);
    }
    return [...picked];
  }

  function next(size: number): SampleOrderBatch {
    const batch: SampleOrderBatch = { orders: [], lines: [], fulfillments: [], refunds: [] };
    const end = Math.min(count, made + size);
    for (let n = made; n < end; n++) {
      const createdMs = createdAtOf(n);
      const createdAt = new Date(createdMs);
      const id = idAt(createdMs);
      const buyer = (
        rand() < 0.33 ? buyers[Math.floor(rand() * loyal)] : buyers[Math.floor(rand() * buyers.length)]
      ) as Buyer;
      const lines = linesOf().map((sellable) => ({ sellable, quantity: weighted(rand(), QUANTITY) }));
      const quote = quoteOf(
        lines.map((l) => ({ price: l.sellable.price, quantity: l.quantity })),
        null,
        pricing,
      );
      const age = options.toMs - createdMs;
      const outcome = weighted(rand(), age < 3 * DAY ? RECENT : OLDER);
      const paid = ['processing', 'completed', 'hold_paid', 'cancel_paid'].includes(outcome);
      const paidMs = paid ? Math.min(options.toMs, createdMs + Math.round(rand() * 10 * 60_000)) : null;
      const fulfilledMs =
        outcome === 'completed'
          ? Math.min(options.toMs, (paidMs ?? createdMs) + Math.round((0.2 + rand() * 4) * DAY))
          : null;
      const cancelledMs =
        outcome === 'cancel_paid' || outcome === 'cancel_unpaid'
          ? Math.min(options.toMs, createdMs + Math.round((0.5 + rand() * 48) * HOUR))
          : null;
      const status: OrderStatus =
        outcome === 'hold_paid' || outcome === 'hold_unpaid'
          ? 'on_hold'
          : outcome === 'cancel_paid' || outcome === 'cancel_unpaid'
            ? 'cancelled'
            : outcome;
      const amountPaid = paid ? quote.total : 0;
      const updatedMs = Math.max(createdMs, paidMs ?? 0, fulfilledMs ?? 0, cancelledMs ?? 0);
      batch.orders.push({
        id,
        store_id: storeId,
        order_number: options.firstNumber + n,
        status,
        status_before_hold:
          outcome === 'hold_paid' ? 'processing' : outcome === 'hold_unpaid' ? 'pending' : null,
        // A paid order cancelled keeps its payment, to be refunded (as cancel does).
        payment_status: outcome === 'cancel_paid' ? 'refund_due' : paid ? 'paid' : 'unpaid',
        fulfillment_status: fulfilledMs === null ? 'unfulfilled' : 'fulfilled',
        currency,
        subtotal: quote.subtotal,
        discount_amount: quote.discount,
        shipping_amount: quote.shipping,
        tax_amount: quote.tax,
        total: quote.total,
        amount_paid: amountPaid,
        amount_refunded: 0,
        coupon_code: null,
        discount_id: null,
        payment_method: paid && rand() < 0.85 ? 'test_card' : 'manual',
        customer_id: buyer.id,
        customer_email: buyer.email,
        customer_first_name: buyer.first_name,
        customer_last_name: buyer.last_name,
        shipping_address: addressOf(buyer),
        notes: rand() < 0.03 ? (NOTES[Math.floor(rand() * NOTES.length)] as string) : null,
        cancel_reason:
          cancelledMs === null
            ? null
            : (CANCEL_REASONS[Math.floor(rand() * CANCEL_REASONS.length)] as string),
        cancelled_at: cancelledMs === null ? null : new Date(cancelledMs),
        paid_at: paidMs === null ? null : new Date(paidMs),
        fulfilled_at: fulfilledMs === null ? null : new Date(fulfilledMs),
        created_at: createdAt,
        updated_at: new Date(updatedMs),
      });
      const refund = maybeRefund(batch.orders.at(-1) as SampleOrder, rand, options.toMs, idAt);
      if (refund) batch.refunds.push(refund);
      lines.forEach(({ sellable, quantity }, position) => {
        batch.lines.push({
          id: idAt(createdMs),
          store_id: storeId,
          order_id: id,
          product_id: sellable.productId,
          variant_id: sellable.variantId,
          name: sellable.name,
          variant_title: sellable.variantTitle,
          sku: sellable.sku,
          quantity,
          price: sellable.price,
          position,
        });
      });
      if (fulfilledMs !== null) {
        const [carrier, trackingUrl] = CARRIERS[Math.floor(rand() * CARRIERS.length)] as (typeof CARRIERS)[0];
        const trackingNumber = `1Z${Math.floor(rand() * 1e12)
          .toString(36)
          .toUpperCase()
          .padStart(8, '0')}${(options.firstNumber + n).toString(36).toUpperCase()}`;
        batch.fulfillments.push({
          id: idAt(fulfilledMs),
          store_id: storeId,
          order_id: id,
          carrier,
          tracking_number: trackingNumber,
          tracking_url: `${trackingUrl}${trackingNumber}`,
          created_at: new Date(fulfilledMs),
        });
      }
    }
    made = end;
    return batch;
  }

  return {
    next,
    get done() {
      return made >= count;
    },
  };
}
