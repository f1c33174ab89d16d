import { currencyDecimals, toDecimalString } from '../../platform/money.js';
import type { OrderDetails } from '../orders/index.js';
import type { StoreRow } from '../stores/index.js';
import type { NotificationKind } from './kinds.js';
import {
  customerOfOrder,
  type MerchantProduct,
  type NotificationVariables,
  orderVariables,
  productVariables,
  refundVariables,
  type ShipmentVariables,
  type StoreLinks,
  storeVariables,
} from './variables.js';

/**
 * The data of previews and test sends: the store itself, its latest order when it has one, and a
 * realistic sample for everything it lacks (an order in the store's currency, a shipment, a refund, a
 * product). Fixed ids and dates, so a preview is the same from one call to the next.
 */

const SAMPLE_DATE = new Date('2026-11-02T09:30:00.000Z');
const SAMPLE_ORDER_ID = '01900000-0000-7000-8000-000000000001';
const SAMPLE_PRODUCT_ID = '01900000-0000-7000-8000-000000000002';
const SAMPLE_VARIANT_ID = '01900000-0000-7000-8000-000000000003';

/** Amounts below are in cents of a two-decimal currency; other currencies scale them (¥2,400, 24.000 BD). */
function minorOf(cents: number, currency: string): number {
  const decimals = currencyDecimals(currency);
  return decimals === 0 ? cents : Math.round(cents * 10 ** (decimals - 2));
}

function sampleOrder(store: StoreRow): OrderDetails {
  const m = (cents: number) => minorOf(cents, store.currency);
  const subtotal = m(2400) * 2 + m(1850);
  const discount = m(665);
  const shipping = m(490);
  const tax = m(1295);
  const total = subtotal - discount + shipping + tax;
  const line = { store_id: store.id, order_id: SAMPLE_ORDER_ID, tax_amount: 0 };
  return {
    order: {
      id: SAMPLE_ORDER_ID,
      store_id: store.id,
      order_number: 1001,
      status: 'processing',
      status_before_hold: null,
      payment_status: 'paid',
      fulfillment_status: 'unfulfilled',
      currency: store.currency,
      subtotal,
      discount_amount: discount,
      shipping_amount: shipping,
      tax_amount: tax,
      total,
      amount_paid: total,
      amount_refunded: 0,
      coupon_code: 'WELCOME10',
      discount_id: null,
      payment_method: 'card',
      customer_id: null,
      customer_email: 'jane.doe@example.com',
      customer_first_name: 'Jane',
      customer_last_name: 'Doe',
      shipping_address: {
        first_name: 'Jane',
        last_name: 'Doe',
        line1: '12 Market Street',
        line2: 'Apartment 4B',
        city: 'Springfield',
        region: 'IL',
        postal_code: '62701',
        country: 'US',
        phone: null,
      },
      notes: null,
      shipping_rate_id: null,
      shipping_method_name: 'Standard shipping',
      tax_lines: [{ name: 'Sales tax', rate: '20', amount: tax, country: 'US', region: null }],
      taxes_included: false,
      cancel_reason: null,
      cancelled_at: null,
      paid_at: SAMPLE_DATE,
      fulfilled_at: null,
      created_at: SAMPLE_DATE,
      updated_at: SAMPLE_DATE,
    },
    lines: [
      {
        ...line,
        id: '01900000-0000-7000-8000-000000000011',
        product_id: SAMPLE_PRODUCT_ID,
        variant_id: SAMPLE_VARIANT_ID,
        name: 'Organic cotton T-shirt',
        variant_title: 'Blue / M',
        sku: 'TEE-BLU-M',
        quantity: 2,
        price: m(2400),
        position: 0,
      },
      {
        ...line,
        id: '01900000-0000-7000-8000-000000000012',
        product_id: null,
        variant_id: null,
        name: 'Canvas tote bag',
        variant_title: null,
        sku: 'TOTE-01',
        quantity: 1,
        price: m(1850),
        position: 1,
      },
    ],
    fulfillments: [],
  };
}

const SAMPLE_SHIPMENT: ShipmentVariables = {
  id: '01900000-0000-7000-8000-000000000021',
  carrier: 'UPS',
  tracking_number: '1Z999AA10123456784',
  tracking_url: 'https://www.ups.com/track?tracknum=1Z999AA10123456784',
  created_at: SAMPLE_DATE.toISOString(),
};

function sampleProduct(store: StoreRow): MerchantProduct {
  const price = toDecimalString(minorOf(2400, store.currency), currencyDecimals(store.currency));
  return {
    id: SAMPLE_PRODUCT_ID,
    name: 'Organic cotton T-shirt',
    slug: 'organic-cotton-t-shirt',
    sku: 'TEE',
    price,
    inventory: 3,
    variants: [{ id: SAMPLE_VARIANT_ID, title: 'Blue / M', sku: 'TEE-BLU-M', price, inventory: 3 }],
  };
}

/**
 * The variables of a preview or test send of `kind`: the store's latest order (or the sample order),
 * its latest shipment (or a sample one), a sample refund of its first line, the sample product.
 */
export function previewVariables(
  kind: NotificationKind,
  store: StoreRow,
  links: StoreLinks,
  latest: OrderDetails | undefined,
): NotificationVariables {
  const details = latest ?? sampleOrder(store);
  // A sample cancellation shows where its reason goes (a real order keeps its own, or none).
  if (!latest && kind === 'order_cancelled')
    Object.assign(details.order, { status: 'cancelled', cancel_reason: 'Requested by the customer' });
  const storeVars = storeVariables(store, links);
  const variables: NotificationVariables = { currency: details.order.currency, store: storeVars };
  if (kind === 'back_in_stock' || kind === 'low_stock') {
    variables.currency = store.currency;
    variables.product = productVariables(sampleProduct(store), SAMPLE_VARIANT_ID, links);
    if (kind === 'low_stock') Object.assign(variables, { threshold: 5, quantity: 3 });
    else variables.customer = { id: null, email: 'jane.doe@example.com', first_name: null, last_name: null };
    return variables;
  }
  const order = orderVariables(details, links);
  variables.order = order;
  variables.customer = customerOfOrder(order);
  if (kind === 'shipping_confirmation') {
    variables.shipment = order.fulfillments.at(-1) ?? SAMPLE_SHIPMENT;
  }
  if (kind === 'refund_issued') {
    const first = details.lines[0];
    const amount = Math.min(first ? first.price : 0, details.order.amount_paid || details.order.total);
    const refunded = { ...details.order, amount_refunded: details.order.amount_refunded + amount };
    if (refunded.amount_paid === 0) refunded.amount_paid = refunded.total;
    variables.refund = refundVariables(
      {
        id: '01900000-0000-7000-8000-000000000031',
        store_id: store.id,
        order_id: details.order.id,
        amount,
        reason: 'Item returned',
        status: 'succeeded',
        provider: 'manual',
        provider_refund_id: null,
        failure_reason: null,
        restocked: [],
        created_at: SAMPLE_DATE,
        updated_at: SAMPLE_DATE,
      },
      refunded,
    );
  }
  return variables;
}
