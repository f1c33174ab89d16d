/** The events a webhook can subscribe to (the seed's list and order.refunded, §9), and sample data for test sends. */
export const WEBHOOK_EVENTS = [
  'order.created',
  'order.paid',
  'order.updated',
  'order.cancelled',
  'order.refunded',
  'product.low_stock',
  'product.out_of_stock',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export const isWebhookEvent = (name: string): name is WebhookEvent =>
  (WEBHOOK_EVENTS as readonly string[]).includes(name);

/** Whether a webhook subscribed to `events` receives `name`. */
export const subscribes = (events: readonly string[], name: string) =>
  events.includes('*') || events.includes(name);

/** Data of a test delivery: the real event's fields and types, with sample values. */
export function sampleData(event: WebhookEvent, now: Date): Record<string, unknown> {
  const timestamp = now.toISOString();
  const order = {
    orderId: '01900000-0000-7000-8000-000000000000',
    orderNumber: '1001',
    customerEmail: 'jane@example.com',
    customerName: 'Jane Doe',
  };
  const stockSample = {
    productName: 'Sample product',
    productId: '01900000-0000-7000-8000-000000000002',
    variantId: null,
    sku: 'SAMPLE-1',
    threshold: 5,
  };
  switch (event) {
    case 'order.created':
      return { ...order, total: 42.5, itemCount: 2, couponCode: 'WELCOME10', timestamp };
    case 'order.paid':
      return {
        ...order,
        total: 42.5,
        itemCount: 2,
        couponCode: 'WELCOME10',
        paymentMethod: 'test_card',
        timestamp,
      };
    case 'order.updated':
      return {
        orderId: order.orderId,
        orderNumber: order.orderNumber,
        changes: { status: { before: 'pending', after: 'processing' } },
        source: 'api',
        timestamp,
      };
    case 'order.cancelled':
      return { ...order, cancelReason: 'customer request', timestamp };
    case 'order.refunded': {
      const refund = {
        id: '01900000-0000-7000-8000-000000000001',
        orderId: order.orderId,
        amount: 10,
        currency: 'USD',
        reason: 'damaged in transit',
        status: 'succeeded',
        provider: 'manual',
        providerRefundId: null,
        restocked: [],
        createdAt: timestamp,
      };
      const summary = {
        id: order.orderId,
        orderNumber: order.orderNumber,
        status: 'processing',
        paymentStatus: 'partially_refunded',
        currency: 'USD',
        total: 42.5,
        amountPaid: 42.5,
        amountRefunded: 10,
      };
      return { ...order, order: summary, refund, timestamp };
    }
    case 'product.low_stock':
      return { ...stockSample, inventory: 3 };
    case 'product.out_of_stock':
      return { ...stockSample, inventory: 0 };
  }
}

/** The body posted for an event: `{ event, timestamp, data }` (+ `test: true` for test sends). */
export function deliveryBody(event: string, timestamp: Date, data: unknown, test = false): string {
  return JSON.stringify({ event, timestamp: timestamp.toISOString(), data, ...(test ? { test: true } : {}) });
}
