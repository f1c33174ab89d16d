import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { inTransaction } from '../../src/platform/db/transaction.js';
import { buildTestApp, startTestWorker, type TestApp } from '../helpers/app.js';
import {
  type Client,
  client,
  createProduct,
  type ProductData,
  sizedProduct,
  UNLIMITED,
} from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { type FakeStripe, startFakeStripe, stripeKeys } from '../helpers/fake-stripe.js';
import { mailsOf as logOf } from '../helpers/notification-log.js';
import { checkoutBody, createOrder } from '../helpers/order-factories.js';
import { type SmtpCatcher, startSmtpCatcher } from '../helpers/smtp-catcher.js';

/**
 * Contract §13, back in stock: the notify-me sign-up (202, once per e-mail and product or variant,
 * limited like code requests) and its end when tracked stock comes back, by every path that puts
 * stock back — one `back_in_stock` e-mail per sign-up, queued in the change's transaction, and a
 * push to a signed-in subscriber's devices.
 */

/** PAYMENT_HOLD_MINUTES of 0.03: a card order waits 1.8 s for its payment. */
const HOLD_MINUTES = 0.03;

let app: TestApp;
let smtp: SmtpCatcher;
let stripe: FakeStripe;
let api: Client;
let slug: string;
let storeId: string;
let otherSlug: string;
let otherApi: Client;

const unique = () => randomBytes(4).toString('hex');
let ipCounter = 0;
/** Per run: Redis keeps its counts between runs of the suite (15 minutes). */
const RUN = 20 + Math.floor(Math.random() * 200);
/** Each call speaks from its own client IP unless told, so the per-IP limit stays out of the way. */
const nextIp = () => `10.${RUN}.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`;
const email = (tag = 'shopper') => `${tag}.${unique()}@example.com`;

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  stripe = await startFakeStripe();
  app = await buildTestApp({
    config: {
      ...UNLIMITED,
      smtpUrl: smtp.url,
      paymentHoldMinutes: HOLD_MINUTES,
      stripe: { apiBase: stripe.url, timeoutMs: 2000 },
    },
  });
  const store = await createStoreWithKey(app);
  api = client(app, store.key);
  slug = store.store.slug;
  storeId = store.store.id;
  const other = await createStoreWithKey(app);
  otherSlug = other.store.slug;
  otherApi = client(app, other.key);
});
afterAll(async () => {
  await app?.close();
  await smtp?.close();
  await stripe?.close();
});

function notifyMe(
  productSlug: string,
  body: unknown,
  options: { ip?: string; headers?: Record<string, string>; store?: string; on?: TestApp } = {},
) {
  return (options.on ?? app).server.inject({
    method: 'POST',
    url: `/api/storefront/${options.store ?? slug}/products/${productSlug}/notify-me`,
    payload: body as object,
    headers: options.headers ?? {},
    remoteAddress: options.ip ?? nextIp(),
  });
}

async function subscribe(product: { slug: string }, address: string, variantId?: string) {
  const res = await notifyMe(product.slug, { email: address, ...(variantId ? { variantId } : {}) });
  expect(res.statusCode, res.body).toBe(202);
  return res;
}

const subscriptionsOf = (productId: string) =>
  app.database.db
    .selectFrom('back_in_stock_subscriptions')
    .selectAll()
    .where('product_id', '=', productId)
    .orderBy('created_at')
    .execute();

/**
 * The store's back-in-stock e-mails about a product, as the log lists them (GET /api/v1/notifications);
 * what the log does not show (the product, refs and dedupe key the worker renders from) is read
 * beside it from the queue's row.
 */
async function mailsOf(productId: string, on: Client = api) {
  // The rows first: the log, read after, lists every one of them (a worker may commit in between).
  const rows = await app.database.db
    .selectFrom('notifications')
    .select(['id', 'refs', 'dedupe_key'])
    .where('kind', '=', 'back_in_stock')
    .where(({ ref }) => ref('refs', '->>').key('product_id'), '=', productId)
    .execute();
  const logged = await logOf(on, { kind: 'back_in_stock' });
  const queued = new Map(rows.map((row) => [row.id, row]));
  expect(logged.filter((m) => queued.has(m.id))).toHaveLength(rows.length);
  return logged
    .flatMap((m) => {
      const row = queued.get(m.id);
      return row ? [{ ...m, to_email: m.to, refs: row.refs, dedupe_key: row.dedupe_key }] : [];
    })
    .sort((a, b) => a.to.localeCompare(b.to));
}

const adjust = async (id: string, adjustment: number, type: 'product' | 'variant' = 'product') => {
  const res = await api.patch(`/api/v1/inventory/${id}`, { type, adjustment });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
};

async function soldOut(extra: Record<string, unknown> = {}) {
  return createProduct(api, { price: '12.00', inventory: 0, status: 'active', ...extra });
}

describe('POST /api/storefront/{slug}/products/{productSlug}/notify-me', () => {
  it('answers 202 { subscribed: true } and stores one sign-up per e-mail, whatever its case, however often sent', async () => {
    const product = await soldOut();
    const address = email('once');
    const first = await subscribe(product, address);
    expect(first.json()).toEqual({ data: { subscribed: true } });
    await subscribe(product, address);
    await subscribe(product, address.toUpperCase());
    // Concurrent repeats meet the unique index: still one row, every answer 202 (5 in all: the limit).
    const burst = await Promise.all(
      Array.from({ length: 2 }, () => notifyMe(product.slug, { email: address.toUpperCase() })),
    );
    expect(burst.map((r) => r.statusCode)).toEqual([202, 202]);
    const twin = await soldOut();
    const racer = email('racer');
    const together = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        notifyMe(twin.slug, { email: i % 2 ? racer : racer.toUpperCase() }),
      ),
    );
    expect(together.map((r) => r.statusCode)).toEqual([202, 202, 202, 202, 202]);
    expect(await subscriptionsOf(twin.id)).toHaveLength(1);
    const rows = await subscriptionsOf(product.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ store_id: storeId, email: address, variant_id: null, customer_id: null });
  });

  it('answers alike for a customer of the store and a stranger (the e-mail is never revealed)', async () => {
    const product = await soldOut();
    const buyer = email('buyer');
    await createOrder(api, {
      customer: { email: buyer, first_name: 'Ada' },
      items: [{ product_id: (await createProduct(api, { inventory: 5 })).id, quantity: 1 }],
    });
    const known = await notifyMe(product.slug, { email: buyer });
    const stranger = await notifyMe(product.slug, { email: email('stranger') });
    expect(known.statusCode).toBe(202);
    expect(stranger.statusCode).toBe(202);
    expect(known.body).toBe(stranger.body);
  });

  it('takes a variant of the product; a variant of another product, or not an id, is 400 naming variantId', async () => {
    const sized = await createProduct(api, sizedProduct({ S: 0, M: 3 }));
    const other = await createProduct(api, sizedProduct({ S: 1, M: 1 }));
    const small = sized.variants[0]?.id as string;
    const address = email('variant');
    await subscribe(sized, address, small);
    // The product itself is a sign-up of its own (any variant), beside the variant's.
    await subscribe(sized, address);
    await subscribe(sized, address.toUpperCase(), small);
    expect(
      (await subscriptionsOf(sized.id))
        .map((r) => r.variant_id)
        .sort((a, b) => String(a).localeCompare(String(b))),
    ).toEqual([small, null].sort((a, b) => String(a).localeCompare(String(b))));
    for (const variantId of [other.variants[0]?.id, 'not-a-uuid', '0190a000-0000-7000-8000-000000000000']) {
      const res = await notifyMe(sized.slug, { email: address, variantId });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().error).toMatchObject({
        code: 'invalid_request',
        details: [{ field: 'variantId' }],
      });
    }
    // A product without variants has none to name.
    const plain = await soldOut();
    const res = await notifyMe(plain.slug, { email: address, variantId: small });
    expect(res.statusCode).toBe(400);
    expect(await subscriptionsOf(plain.id)).toHaveLength(0);
  });

  it('refuses a bad e-mail or body (400) and an unknown store, product or an unpublished one (404)', async () => {
    const product = await soldOut();
    for (const body of [
      { email: 'not-an-email' },
      { email: '' },
      {},
      { email: `${'a'.repeat(250)}@example.com` },
      { email: email(), extra: 1 },
      { email: 42 },
    ]) {
      const res = await notifyMe(product.slug, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
    }
    const draft = await soldOut({ status: 'draft' });
    const archived = await soldOut({ status: 'archived' });
    for (const [store, productSlug] of [
      ['no-such-store', product.slug],
      [slug, 'no-such-product'],
      [slug, draft.slug],
      [slug, archived.slug],
    ] as const) {
      const res = await notifyMe(productSlug, { email: email() }, { store });
      expect(res.statusCode, `${store}/${productSlug}`).toBe(404);
      expect(res.json().error.code).toBe('not_found');
    }
    expect(await subscriptionsOf(draft.id)).toHaveLength(0);
  });

  it("is scoped to the store: store A's product slug under store B's slug is 404", async () => {
    const product = await soldOut();
    const res = await notifyMe(product.slug, { email: email() }, { store: otherSlug });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('not_found');
    // The same slug in store B is store B's own product: its sign-up is B's, A's product untouched.
    const theirs = await createProduct(otherApi, { slug: product.slug, inventory: 0 });
    expect((await notifyMe(product.slug, { email: email() }, { store: otherSlug })).statusCode).toBe(202);
    expect(await subscriptionsOf(product.id)).toHaveLength(0);
    expect(await subscriptionsOf(theirs.id)).toHaveLength(1);
  });
});

/**
 * The limits of code requests: 5 per e-mail and 30 per client IP per 15 minutes. `exact`: every
 * request within the limit passes even in a burst. In Redis a burst in one process can be refused
 * beyond the limit (the store answers its local count, which holds the in-flight hits of other
 * requests), never passed beyond it: there the limit must hold, not be reached.
 */
function limitTests(name: string, appOf: () => TestApp, exact: boolean) {
  describe(`limits (${name})`, () => {
    it('at most 5 sign-ups per e-mail: the 6th is 429 with the envelope and Retry-After', async () => {
      const product = await soldOut();
      const address = email('limit');
      for (let i = 0; i < 5; i++) {
        const res = await notifyMe(product.slug, { email: address }, { on: appOf(), ip: nextIp() });
        expect(res.statusCode).toBe(202);
      }
      const sixth = await notifyMe(product.slug, { email: address.toUpperCase() }, { on: appOf() });
      expect(sixth.statusCode).toBe(429);
      expect(sixth.json().error).toMatchObject({ code: 'rate_limited', message: expect.any(String) });
      expect(Number(sixth.headers['retry-after'])).toBeGreaterThan(0);
    });

    it('a burst of 30 simultaneous sign-ups of one e-mail from three addresses: no more than 5 pass', async () => {
      const product = await soldOut();
      const address = email('burst');
      const ips = [nextIp(), nextIp(), nextIp()];
      const statuses = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          notifyMe(product.slug, { email: address }, { on: appOf(), ip: ips[i % 3] }).then(
            (r) => r.statusCode,
          ),
        ),
      );
      const passed = statuses.filter((s) => s === 202).length;
      if (exact) expect(passed, JSON.stringify(statuses)).toBe(5);
      else expect(passed).toBeLessThanOrEqual(5);
      expect(statuses.filter((s) => s === 429)).toHaveLength(30 - passed);
      expect(await subscriptionsOf(product.id)).toHaveLength(passed > 0 ? 1 : 0);
    });

    it('a burst of 31 simultaneous sign-ups from one address (other e-mails): no more than 30 pass', async () => {
      const product = await soldOut();
      // Unique per run: Redis keeps its counts between runs of the suite.
      const ip = nextIp();
      const responses = await Promise.all(
        Array.from({ length: 31 }, (_, i) =>
          notifyMe(product.slug, { email: email(`ip${i}`) }, { on: appOf(), ip }),
        ),
      );
      const statuses = responses.map((r) => r.statusCode);
      const passed = statuses.filter((s) => s === 202).length;
      if (exact) expect(passed, JSON.stringify(statuses)).toBe(30);
      else expect(passed).toBeLessThanOrEqual(30);
      expect(statuses.filter((s) => s === 429)).toHaveLength(31 - passed);
      const refused = responses.find((r) => r.statusCode === 429);
      expect(refused?.json().error.code).toBe('rate_limited');
      expect(refused?.headers['retry-after']).toBeDefined();
      expect(await subscriptionsOf(product.id)).toHaveLength(passed);
      // One after the burst, from the same address: refused, whatever the burst let through.
      const after = await notifyMe(product.slug, { email: email('after') }, { on: appOf(), ip });
      expect(after.statusCode).toBe(429);
    });
  });
}

limitTests('in-process counters', () => app, true);

const redisUrl = inject('redisUrl');
describe.skipIf(!redisUrl)('with Redis', () => {
  let redisApp: TestApp;
  beforeAll(async () => {
    // A second server on the same database, counting in Redis as `serve` does with REDIS_URL.
    redisApp = await buildTestApp({ config: UNLIMITED, testDatabase: app.testDatabase, redis: true });
  });
  afterAll(async () => {
    await redisApp?.close();
  });
  limitTests('Redis', () => redisApp, false);
});

describe('restock: tracked stock from 0 to more than 0 ends the sign-ups', () => {
  it('an inventory adjustment queues one e-mail per sign-up, in the change, and ends them', async () => {
    const product = await soldOut();
    const [a, b] = [email('a'), email('b')];
    await subscribe(product, a);
    await subscribe(product, b);
    expect(await adjust(product.id, 5)).toMatchObject({ previous: 0, inventory: 5 });
    const mails = await mailsOf(product.id);
    expect(mails.map((m) => m.to_email)).toEqual([a, b].sort());
    const subscriptions = (await subscriptionsOf(product.id)).length;
    expect(subscriptions).toBe(0);
    for (const mail of mails) {
      expect(mail).toMatchObject({ kind: 'back_in_stock', status: 'pending', order_id: null });
      expect(mail.refs).toEqual({
        product_id: product.id,
        variant_id: null,
        customer_id: null,
        subscription_email: mail.to_email,
      });
      expect(mail.dedupe_key).toMatch(/^back_in_stock:[0-9a-f-]{36}$/);
    }
    // Another store's log does not list them.
    expect((await logOf(otherApi, { kind: 'back_in_stock' })).map((m) => m.to)).not.toContain(a);
    // 5 → 0 → 5: the ended sign-ups are not told again.
    await adjust(product.id, -5);
    await adjust(product.id, 5);
    expect(await mailsOf(product.id)).toHaveLength(2);
    // A new sign-up after that waits for the next return.
    await adjust(product.id, -5);
    const c = email('c');
    await subscribe(product, c);
    await adjust(product.id, 1);
    expect((await mailsOf(product.id)).map((m) => m.to_email)).toEqual([a, b, c].sort());
  });

  it('stock that stays above 0, and untracked stock, end nothing', async () => {
    const inStock = await createProduct(api, { inventory: 2 });
    await subscribe(inStock, email());
    await adjust(inStock.id, 3);
    expect(await subscriptionsOf(inStock.id)).toHaveLength(1);
    expect(await mailsOf(inStock.id)).toHaveLength(0);
    const untracked = await createProduct(api, { inventory: 0, track_inventory: false });
    await subscribe(untracked, email());
    await adjust(untracked.id, 4);
    expect(await subscriptionsOf(untracked.id)).toHaveLength(1);
    expect(await mailsOf(untracked.id)).toHaveLength(0);
  });

  it("a variant's return ends its sign-ups and the product's (any variant), not another variant's", async () => {
    const sized = await createProduct(api, sizedProduct({ S: 0, M: 0 }));
    const [small, medium] = sized.variants.map((v) => v.id) as [string, string];
    const [forSmall, forMedium, forAny] = [email('small'), email('medium'), email('any')];
    await subscribe(sized, forSmall, small);
    await subscribe(sized, forMedium, medium);
    await subscribe(sized, forAny);
    await adjust(small, 2, 'variant');
    const mails = await mailsOf(sized.id);
    expect(mails.map((m) => [m.to_email, m.refs.variant_id])).toEqual(
      [
        [forSmall, small],
        [forAny, null],
      ].sort((x, y) => String(x[0]).localeCompare(String(y[0]))),
    );
    expect((await subscriptionsOf(sized.id)).map((s) => s.email)).toEqual([forMedium]);
    await adjust(medium, 1, 'variant');
    expect((await mailsOf(sized.id)).map((m) => m.to_email)).toContain(forMedium);
    expect(await subscriptionsOf(sized.id)).toHaveLength(0);
  });

  it('a product PATCH setting a quantity, and one setting a variant quantity, are restocks', async () => {
    const product = await soldOut();
    const address = email('patch');
    await subscribe(product, address);
    const patched = await api.patch(`/api/v1/products/${product.id}`, { inventory: 7 });
    expect(patched.statusCode, patched.body).toBe(200);
    expect((await mailsOf(product.id)).map((m) => m.to_email)).toEqual([address]);

    const sized = await createProduct(api, sizedProduct({ S: 0, M: 4 }));
    const small = sized.variants[0] as ProductData['variants'][number];
    const forSmall = email('patch-small');
    await subscribe(sized, forSmall, small.id);
    const variants = sized.variants.map((v) => ({
      id: v.id,
      options: v.options,
      inventory: v.id === small.id ? 3 : v.inventory,
    }));
    const res = await api.patch(`/api/v1/products/${sized.id}`, { variants });
    expect(res.statusCode, res.body).toBe(200);
    expect((await mailsOf(sized.id)).map((m) => m.to_email)).toEqual([forSmall]);
    expect(await subscriptionsOf(sized.id)).toHaveLength(0);
  });

  it('a cancelled order puts its units back: a restock', async () => {
    const product = await createProduct(api, { inventory: 2 });
    const order = await createOrder(api, { items: [{ product_id: product.id, quantity: 2 }] });
    const address = email('cancel');
    await subscribe(product, address);
    const res = await api.post(`/api/v1/orders/${order.id}/cancel`, {});
    expect(res.statusCode, res.body).toBe(200);
    expect((await mailsOf(product.id)).map((m) => m.to_email)).toEqual([address]);
    expect(await subscriptionsOf(product.id)).toHaveLength(0);
  });

  it('an order edit that removes a line puts its units back: a restock; a dry run does not', async () => {
    const product = await createProduct(api, { inventory: 1 });
    const keep = await createProduct(api, { inventory: 5 });
    const order = await createOrder(api, {
      items: [
        { product_id: product.id, quantity: 1 },
        { product_id: keep.id, quantity: 1 },
      ],
    });
    const address = email('edit');
    await subscribe(product, address);
    const line = order.line_items.find((l: { product_id: string }) => l.product_id === product.id);
    const preview = await api.post(`/api/v1/orders/${order.id}/edit-items`, {
      remove: [line.id],
      dry_run: true,
    });
    expect(preview.statusCode, preview.body).toBe(200);
    expect(await mailsOf(product.id)).toHaveLength(0);
    expect(await subscriptionsOf(product.id)).toHaveLength(1);
    const edited = await api.post(`/api/v1/orders/${order.id}/edit-items`, { remove: [line.id] });
    expect(edited.statusCode, edited.body).toBe(200);
    expect((await mailsOf(product.id)).map((m) => m.to_email)).toEqual([address]);
    expect(await subscriptionsOf(product.id)).toHaveLength(0);
  });

  it('a refund that restocks units is a restock; one without restock is not', async () => {
    const product = await createProduct(api, { price: '10.00', inventory: 1 });
    const order = await createOrder(api, {
      items: [{ product_id: product.id, quantity: 1 }],
      mark_paid: true,
    });
    const address = email('refund');
    await subscribe(product, address);
    const plain = await api.post(`/api/v1/orders/${order.id}/refunds`, { amount: 1 });
    expect(plain.statusCode, plain.body).toBe(201);
    expect(await mailsOf(product.id)).toHaveLength(0);
    const lineId = order.line_items[0].id as string;
    const restocking = await api.post(`/api/v1/orders/${order.id}/refunds`, {
      amount: 2,
      restock: [{ line_item_id: lineId, quantity: 1 }],
    });
    expect(restocking.statusCode, restocking.body).toBe(201);
    expect((await mailsOf(product.id)).map((m) => m.to_email)).toEqual([address]);
  });

  it('a released payment hold (the worker) puts the units back: a restock', async () => {
    expect((await api.put('/api/v1/payments/stripe', stripeKeys())).statusCode).toBe(200);
    const product = await createProduct(api, { price: '10.00', inventory: 2 });
    const checkout = await app.server.inject({
      method: 'POST',
      url: `/api/storefront/${slug}/checkout`,
      payload: checkoutBody([{ productId: product.id, quantity: 2 }], { paymentMethod: 'stripe' }),
    });
    expect(checkout.statusCode, checkout.body).toBe(201);
    const address = email('hold');
    await subscribe(product, address);
    const worker = startTestWorker(app);
    try {
      const until = Date.now() + 15_000;
      while ((await mailsOf(product.id)).length === 0 && Date.now() < until)
        await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      await worker.stop();
    }
    const order = (await api.get(`/api/v1/orders/${checkout.json().data.id}`)).json().data;
    expect(order).toMatchObject({ status: 'cancelled', cancel_reason: 'payment_expired' });
    expect((await mailsOf(product.id)).map((m) => m.to_email)).toEqual([address]);
    expect(await subscriptionsOf(product.id)).toHaveLength(0);
  });

  it('a restock that rolls back queues nothing and ends nothing', async () => {
    const product = await soldOut();
    await subscribe(product, email('rollback'));
    await expect(
      inTransaction(app.database.db, async (tx) => {
        await app.services.inventory.applyChange(tx, storeId, {
          productId: product.id,
          delta: 3,
          source: 'api',
        });
        // The stock came back in this transaction: the sign-up ended and its e-mail is queued…
        const inside = await tx
          .selectFrom('notifications')
          .select('id')
          .where('store_id', '=', storeId)
          .where(({ ref }) => ref('refs', '->>').key('product_id'), '=', product.id)
          .execute();
        expect(inside).toHaveLength(1);
        throw new Error('the change fails after the stock moved');
      }),
    ).rejects.toThrow('the change fails');
    // …and none of it survives the rollback.
    expect(await mailsOf(product.id)).toHaveLength(0);
    expect(await subscriptionsOf(product.id)).toHaveLength(1);
    expect((await api.get(`/api/v1/inventory/${product.id}`)).json().data.inventory).toBe(0);
  });

  it("a store's turned-off back_in_stock e-mail is not queued, but the sign-ups still end", async () => {
    const other = await createStoreWithKey(app);
    const theirApi = client(app, other.key);
    const product = await createProduct(theirApi, { inventory: 0 });
    await app.database.db
      .insertInto('notification_templates')
      .values({ store_id: other.store.id, kind: 'back_in_stock', enabled: false, updated_at: new Date() })
      .execute();
    const res = await notifyMe(product.slug, { email: email() }, { store: other.store.slug });
    expect(res.statusCode).toBe(202);
    const adjusted = await theirApi.patch(`/api/v1/inventory/${product.id}`, { adjustment: 2 });
    expect(adjusted.statusCode).toBe(200);
    expect(await logOf(theirApi, {})).toHaveLength(0);
    expect(await subscriptionsOf(product.id)).toHaveLength(0);
  });
});

describe('a signed-in subscriber gets a push when backInStock is on', () => {
  /** A customer session of the store, through the one-time-code login and the real SMTP capture. */
  async function signIn(address: string) {
    const before = smtp.messages.length;
    const ip = nextIp();
    const requested = await app.server.inject({
      method: 'POST',
      url: `/api/storefront/${slug}/auth/request-code`,
      payload: { email: address },
      remoteAddress: ip,
    });
    expect(requested.statusCode).toBe(202);
    const mail = await smtp.waitFor(
      (m) => smtp.messages.indexOf(m) >= before && (m.to ?? '').includes(address),
    );
    const code = mail.text.match(/\b(\d{6})\b/)?.[1] as string;
    const verified = await app.server.inject({
      method: 'POST',
      url: `/api/storefront/${slug}/auth/verify`,
      payload: { email: address, code },
      remoteAddress: ip,
    });
    expect(verified.statusCode, verified.body).toBe(200);
    const { token, customer } = verified.json().data as { token: string; customer: { id: string } };
    return { headers: { authorization: `Bearer ${token}` }, customerId: customer.id };
  }

  async function registerDevice(headers: Record<string, string>) {
    const res = await app.server.inject({
      method: 'POST',
      url: '/api/mobile/device/register',
      headers,
      payload: { token: `device-${unique()}`, platform: 'android' },
    });
    expect(res.statusCode, res.body).toBe(201);
  }

  const pushesOf = (customerId: string) =>
    app.database.db
      .selectFrom('push_notifications')
      .selectAll()
      .where('store_id', '=', storeId)
      .where('customer_id', '=', customerId)
      .execute();

  it('stores the customer with the sign-up and pushes to each device; none when the preference is off', async () => {
    const product = await soldOut({ name: 'Blue Mug' });
    const on = await signIn(email('push-on'));
    const off = await signIn(email('push-off'));
    for (const shopper of [on, off]) {
      await registerDevice(shopper.headers);
    }
    await registerDevice(on.headers);
    const turnedOff = await app.server.inject({
      method: 'PUT',
      url: '/api/mobile/notifications/preferences',
      headers: off.headers,
      payload: { backInStock: false },
    });
    expect(turnedOff.statusCode, turnedOff.body).toBe(200);
    for (const shopper of [on, off]) {
      const res = await notifyMe(product.slug, { email: email('any-address') }, { headers: shopper.headers });
      expect(res.statusCode, res.body).toBe(202);
    }
    expect((await subscriptionsOf(product.id)).map((s) => s.customer_id).sort()).toEqual(
      [on.customerId, off.customerId].sort(),
    );
    await adjust(product.id, 1);
    const pushes = await pushesOf(on.customerId);
    expect(pushes).toHaveLength(2);
    for (const push of pushes) {
      expect(push).toMatchObject({ title: 'Back in stock', status: 'pending' });
      expect(push.body).toContain('Blue Mug is back in stock');
      expect(push.data).toEqual({ type: 'back_in_stock', productId: product.id, productSlug: product.slug });
    }
    expect(await pushesOf(off.customerId)).toHaveLength(0);
    const mails = await mailsOf(product.id);
    expect(mails.map((m) => m.refs.customer_id).sort()).toEqual([on.customerId, off.customerId].sort());
  });

  it("a session of another store is not this store's customer: the sign-up is a guest's", async () => {
    const product = await soldOut();
    const shopper = await signIn(email('elsewhere'));
    const theirs = await createProduct(otherApi, { inventory: 0 });
    const res = await notifyMe(
      theirs.slug,
      { email: email() },
      { store: otherSlug, headers: shopper.headers },
    );
    expect(res.statusCode).toBe(202);
    expect((await subscriptionsOf(theirs.id))[0]?.customer_id).toBeNull();
    expect(await subscriptionsOf(product.id)).toHaveLength(0);
  });

  it('a wrong Bearer token is 401, not a guest sign-up', async () => {
    const product = await soldOut();
    const res = await notifyMe(
      product.slug,
      { email: email() },
      { headers: { authorization: 'Bearer cs_nope' } },
    );
    expect(res.statusCode).toBe(401);
    expect(res.json().error.code).toBe('unauthorized');
    expect(await subscriptionsOf(product.id)).toHaveLength(0);
  });
});
