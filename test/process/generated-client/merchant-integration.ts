/**
 * A merchant's integration written against a client that @hey-api/openapi-ts generated from
 * /openapi.json (test/process/generated-client.test.ts copies this file beside the generated
 * `client/` folder, compiles both with `tsc --strict` and runs the result). Nothing here is ours
 * but the document: the base URL is the document's `servers` entry, the types its schemas.
 *
 *   node merchant-integration.js API_KEY WEBHOOK_RECEIVER_URL
 */
import { client } from './client/client.gen.js';
import {
  createOrder,
  createProduct,
  createRefund,
  createWebhook,
  getOrder,
  listOrders,
  listProducts,
  markOrderPaid,
  sendTestWebhook,
} from './client/index.js';

declare const process: { argv: string[]; exitCode?: number };

/** True only when T is a closed set of strings: a response field the document gives as an enum. */
type IsEnum<T> = string extends T ? false : true;

const [apiKey = '', receiverUrl = ''] = process.argv.slice(2);
client.setConfig({ headers: { 'X-API-Key': apiKey } });

function check(condition: unknown, what: string): asserts condition {
  if (!condition) throw new Error(`check failed: ${what}`);
}

async function main() {
  // Products: a create honoured once per Idempotency-Key (a declared header parameter).
  const created: string[] = [];
  for (let i = 0; i < 5; i++) {
    const answer = await createProduct({
      body: { name: `Generated ${i}`, price: '12.50', inventory: 10, status: 'active' },
      headers: { 'Idempotency-Key': `generated-product-${i}` },
      throwOnError: true,
    });
    created.push(answer.data.data.id);
    check(answer.response.headers.get('x-request-id'), 'X-Request-Id on the answer');
  }
  const replay = await createProduct({
    body: { name: 'Generated 0', price: '12.50', inventory: 10, status: 'active' },
    headers: { 'Idempotency-Key': 'generated-product-0' },
    throwOnError: true,
  });
  check(replay.data.data.id === created[0], 'the same key returns the first product');

  // Every product by cursor pages of two.
  const walked: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await listProducts({
      query: { limit: 2, ...(cursor ? { cursor } : {}) },
      throwOnError: true,
    });
    walked.push(...page.data.data.map((product) => product.id));
    cursor = page.data.meta.pagination.next_cursor ?? undefined;
    pages++;
  } while (cursor && pages < 10);
  check(pages === 3, `three pages of two (got ${pages})`);
  check(walked.length === 5 && created.every((id) => walked.includes(id)), 'every product walked once');

  // An order, paid, then partly refunded.
  const order = await createOrder({
    body: {
      customer: { email: 'generated@example.com' },
      items: [{ product_id: created[0] as string, quantity: 2 }],
    },
    headers: { 'Idempotency-Key': 'generated-order' },
    throwOnError: true,
  });
  const orderId = order.data.data.id;
  const paid = await markOrderPaid({ path: { id: orderId }, throwOnError: true });
  const paymentStatus = paid.data.data.payment_status;
  const enumTyped: IsEnum<typeof paymentStatus> = true;
  check(enumTyped && paymentStatus === 'paid', `paid (got ${paymentStatus})`);
  const refund = await createRefund({
    path: { id: orderId },
    body: { amount: '5.00', reason: 'scratched' },
    throwOnError: true,
  });
  const provider: IsEnum<typeof refund.data.data.provider> = true;
  check(provider && refund.data.data.status === 'succeeded', 'the refund succeeded');
  const refunded = await getOrder({ path: { id: orderId }, throwOnError: true });
  check(refunded.data.data.payment_status === 'partially_refunded', 'the order is partially refunded');

  // A malformed filter: the error envelope, naming the parameter.
  const bad = await listOrders({ query: { customer_id: 'not-an-id' } });
  check(bad.response?.status === 400, 'a malformed customer_id is 400');
  check(bad.error?.error.code === 'invalid_request', 'invalid_request');
  check(bad.error?.error.details?.[0]?.field === 'customer_id', 'the detail names customer_id');

  // A webhook and a test delivery to the local receiver.
  const webhook = await createWebhook({
    body: { url: `${receiverUrl}/generated`, events: ['order.created', 'order.refunded'] },
    throwOnError: true,
  });
  check(webhook.data.data.secret.startsWith('whsec_'), 'the secret is shown at creation');
  const delivery = await sendTestWebhook({
    path: { id: webhook.data.data.id },
    body: { event: 'order.refunded' },
    throwOnError: true,
  });
  const eventType: IsEnum<typeof delivery.data.data.event_type> = true;
  check(eventType && delivery.data.data.status === 'succeeded', `delivered (${delivery.data.data.status})`);

  console.log(JSON.stringify({ products: created, orderId, webhookId: webhook.data.data.id, pages }));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : JSON.stringify(error));
  process.exitCode = 1;
});
