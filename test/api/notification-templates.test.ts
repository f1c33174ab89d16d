import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { type Client, client, createProduct, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { createOrder } from '../helpers/order-factories.js';

/**
 * Contract §13's templates: GET/PUT/DELETE /api/v1/notifications/templates/{kind}, preview and test
 * send; Liquid refused with 400 naming the part and line when it does not parse or render (unknown
 * tag or filter, unclosed tag, a loop past the time limit), NUL bytes, oversized bodies; escaping in
 * html only; scopes; one store never sees another's.
 */
let app: TestApp;
let api: Client;
const ORIGIN = 'http://localhost:3000';
const KINDS = [
  'order_confirmation',
  'shipping_confirmation',
  'order_cancelled',
  'refund_issued',
  'back_in_stock',
  'new_order',
  'low_stock',
];
const T = '/api/v1/notifications/templates';

beforeAll(async () => {
  app = await buildTestApp({ config: { ...UNLIMITED, publicUrl: ORIGIN } });
  const store = await createStoreWithKey(app);
  api = client(app, store.key);
});
afterAll(() => app.close());

async function newStore() {
  const { store, key } = await createStoreWithKey(app);
  return { store, api: client(app, key) };
}

const templateOf = async (who: Client, kind: string) => {
  const res = await who.get(`${T}/${kind}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
};

describe('GET /api/v1/notifications/templates', () => {
  it('lists the seven kinds with their defaults, on, not customised, and their variables', async () => {
    const res = await api.get(T);
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data as Record<string, unknown>[];
    expect(data.map((t) => t.kind)).toEqual(KINDS);
    for (const t of data) {
      expect(t).toMatchObject({ enabled: true, customised: false });
      expect(t.subject).toEqual(expect.stringContaining('{{ store.name }}'));
      expect(t.html).toEqual(expect.stringContaining('<table'));
      expect(t.text).toEqual(expect.any(String));
      expect(t.variables).toEqual(expect.arrayContaining(['store']));
    }
    expect(data.find((t) => t.kind === 'shipping_confirmation')?.variables).toContain('shipment');
    expect(data.find((t) => t.kind === 'refund_issued')?.variables).toContain('refund');
    expect(data.find((t) => t.kind === 'low_stock')?.variables).toEqual(
      expect.arrayContaining(['product', 'threshold', 'quantity']),
    );
  });

  it('answers one kind with an ETag; an unknown kind is 404 on every endpoint', async () => {
    const res = await api.get(`${T}/order_confirmation`);
    expect(res.statusCode).toBe(200);
    expect(res.headers.etag).toMatch(/^"/);
    for (const [method, url, body] of [
      ['get', `${T}/nope`, undefined],
      ['put', `${T}/nope`, { enabled: false }],
      ['del', `${T}/nope`, undefined],
      ['post', `${T}/nope/preview`, {}],
      ['post', `${T}/nope/test`, { to: 'a@example.com' }],
      ['get', `${T}/__proto__`, undefined],
    ] as const) {
      const answer =
        method === 'get' || method === 'del' ? await api[method](url) : await api[method](url, body);
      expect(answer.statusCode, `${method} ${url}`).toBe(404);
      expect(answer.json().error.code).toBe('not_found');
    }
  });
});

describe('PUT /api/v1/notifications/templates/{kind}', () => {
  it('changes only the parts sent, answers the template with a new ETag, and turns a kind off', async () => {
    const { api: own } = await newStore();
    const before = await own.get(`${T}/order_confirmation`);
    const res = await own.put(`${T}/order_confirmation`, { subject: 'Thanks! #{{ order.order_number }}' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers.etag).not.toBe(before.headers.etag);
    const data = res.json().data;
    expect(data).toMatchObject({ kind: 'order_confirmation', enabled: true, customised: true });
    expect(data.subject).toBe('Thanks! #{{ order.order_number }}');
    expect(data.html).toBe(before.json().data.html);
    expect(await templateOf(own, 'order_confirmation')).toEqual(data);

    const off = await own.put(`${T}/new_order`, { enabled: false });
    expect(off.json().data).toMatchObject({ enabled: false, customised: false });
    expect((await templateOf(own, 'new_order')).enabled).toBe(false);
    const on = await own.put(`${T}/new_order`, { enabled: true });
    expect(on.json().data).toMatchObject({ enabled: true, customised: false });
  });

  it('counts a part equal to the default as not customised', async () => {
    const { api: own } = await newStore();
    const { subject } = await templateOf(own, 'refund_issued');
    await own.put(`${T}/refund_issued`, { subject: 'Changed' });
    const back = await own.put(`${T}/refund_issued`, { subject });
    expect(back.json().data).toMatchObject({ subject, customised: false });
  });

  it('refuses a write over a stale ETag with 412 and stores nothing', async () => {
    const { api: own } = await newStore();
    const read = await own.get(`${T}/order_cancelled`);
    const etag = String(read.headers.etag);
    const first = await own.put(`${T}/order_cancelled`, { subject: 'First' }, { 'if-match': etag });
    expect(first.statusCode, first.body).toBe(200);
    const second = await own.put(`${T}/order_cancelled`, { subject: 'Second' }, { 'if-match': etag });
    expect(second.statusCode).toBe(412);
    expect(second.json().error.code).toBe('precondition_failed');
    expect((await templateOf(own, 'order_cancelled')).subject).toBe('First');
    const third = await own.put(
      `${T}/order_cancelled`,
      { subject: 'Third' },
      { 'if-match': String(first.headers.etag) },
    );
    expect(third.statusCode).toBe(200);
  });

  it('refuses unknown fields and empty parts with 400', async () => {
    for (const body of [{ colour: 'red' }, { subject: '' }, { enabled: 'yes' }, { html: 5 }]) {
      const res = await api.put(`${T}/order_confirmation`, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
    }
  });
});

describe('templates that do not parse or render', () => {
  const cases: [string, Record<string, string>, RegExp, string][] = [
    [
      'an unknown tag',
      { html: '<p>a</p>\n<p>b</p>\n{% foo %}' },
      /^html: line 3: tag "foo" not found/,
      'html',
    ],
    [
      'an unclosed tag',
      { text: 'Hello\n{% if order %}\nno end' },
      /^text: line 2: tag \{% if order %\} not closed/,
      'text',
    ],
    [
      'an unknown filter',
      { subject: '{{ order.total | shout }}' },
      /^subject: line 1: undefined filter: shout/,
      'subject',
    ],
    [
      'an unclosed output',
      { html: '{{ order.total' },
      /^html: line 1: output "\{\{ order.total" not closed/,
      'html',
    ],
    ['a file include', { html: '{% include "secrets" %}' }, /^html: line 1: tag "include" not found/, 'html'],
    [
      'a render of a file',
      { text: '{% render "../../etc/passwd" %}' },
      /^text: line 1: tag "render" not found/,
      'text',
    ],
    [
      'a huge range',
      { html: '{% for i in (1..100000000) %}{% endfor %}' },
      /^html: line 1: memory alloc limit exceeded/,
      'html',
    ],
    [
      'nested loops past the time limit',
      { text: '{% for i in (1..100000) %}{% for j in (1..100000) %}{% endfor %}{% endfor %}' },
      /^text: line 1: template render limit exceeded/,
      'text',
    ],
    ['a NUL character', { html: 'a\u0000b' }, /NUL/, 'html'],
  ];

  for (const [what, body, message, field] of cases) {
    it(`refuses ${what} with 400 naming the part and line, quickly, and stores nothing`, async () => {
      const { api: own } = await newStore();
      const before = await templateOf(own, 'order_confirmation');
      const started = Date.now();
      const res = await own.put(`${T}/order_confirmation`, body);
      expect(Date.now() - started).toBeLessThan(3000);
      expect(res.statusCode, res.body).toBe(400);
      const { error } = res.json();
      expect(error.code).toBe('invalid_request');
      expect(error.message).toMatch(message);
      expect(error.details?.[0]?.field).toBe(field);
      expect(await templateOf(own, 'order_confirmation')).toEqual(before);
      // The preview refuses the same unsaved part the same way.
      const preview = await own.post(`${T}/order_confirmation/preview`, body);
      expect(preview.statusCode).toBe(400);
      expect(preview.json().error.message).toMatch(message.source.includes('NUL') ? /NUL/ : message);
    });
  }

  it('refuses a part longer than the schema allows (a 1 MB template too) with 400, and a 1 MiB body with 413; nothing stored', async () => {
    const { api: own } = await newStore();
    const before = await templateOf(own, 'order_confirmation');
    const long = await own.put(`${T}/order_confirmation`, { html: 'x'.repeat(100_001) });
    expect(long.statusCode).toBe(400);
    expect(long.json().error.code).toBe('invalid_request');
    // A 1 MB template (a body under the 1 MiB cap): 400 naming the part, in the body and in a preview.
    const megabyte = { text: `{% comment %}${'x'.repeat(1_000_000)}{% endcomment %}` };
    for (const res of [
      await own.put(`${T}/order_confirmation`, megabyte),
      await own.post(`${T}/order_confirmation/preview`, megabyte),
    ]) {
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
      expect(res.json().error.details?.[0]?.field).toMatch(/text/);
    }
    const huge = await own.put(`${T}/order_confirmation`, { html: 'x'.repeat(1024 * 1024 + 10) });
    expect(huge.statusCode).toBe(413);
    expect(huge.json().error.code).toBe('payload_too_large');
    expect(await templateOf(own, 'order_confirmation')).toEqual(before);
  });

  it('refuses an output past the size cap', async () => {
    const res = await api.post(`${T}/order_confirmation/preview`, {
      // 100,000 characters captured once, then printed 20 times: 2,000,000, twice the cap.
      text: `{% capture s %}{% for i in (1..2000) %}${'x'.repeat(50)}{% endfor %}{% endcapture %}{% for i in (1..20) %}{{ s }}{% endfor %}`,
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().error.message).toMatch(/^text: the rendered text is longer than/);
  });
});

describe('DELETE /api/v1/notifications/templates/{kind}', () => {
  it('restores the default wording and keeps the kind on or off as it was', async () => {
    const { api: own } = await newStore();
    const original = await templateOf(own, 'shipping_confirmation');
    await own.put(`${T}/shipping_confirmation`, { subject: 'Shipped!', text: 'It shipped.', enabled: false });
    const res = await own.del(`${T}/shipping_confirmation`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers.etag).toMatch(/^"/);
    expect(res.json().data).toEqual({ ...original, enabled: false });
    expect(await templateOf(own, 'shipping_confirmation')).toEqual({ ...original, enabled: false });
    await own.put(`${T}/shipping_confirmation`, { enabled: true });
    expect(await templateOf(own, 'shipping_confirmation')).toEqual(original);
    // Restoring a kind never changed is harmless.
    expect((await own.del(`${T}/low_stock`)).statusCode).toBe(200);
  });
});

describe('POST /api/v1/notifications/templates/{kind}/preview', () => {
  it('renders sample data in the store currency when the store has no order', async () => {
    const { api: own, store } = await newStore();
    const res = await own.post(`${T}/order_confirmation/preview`, {});
    expect(res.statusCode, res.body).toBe(200);
    const { subject, html, text } = res.json().data;
    expect(subject).toBe('Order #1001 confirmed — Test Store');
    expect(html).toContain('Organic cotton T-shirt');
    expect(html).toContain('$77.70');
    expect(text).toContain(`${ORIGIN}/shop/${store.slug}/account/orders/1001`);
    const empty = await app.server.inject({
      method: 'POST',
      url: `${T}/low_stock/preview`,
      headers: { 'x-api-key': (await createStoreWithKey(app)).key },
    });
    expect(empty.statusCode, empty.body).toBe(200);
    expect(empty.json().data.subject).toMatch(/^Low stock: Organic cotton T-shirt/);
  });

  it("renders the store's latest order; unsaved parts replace the saved ones; nothing is stored", async () => {
    const { api: own } = await newStore();
    const product = await createProduct(own, { name: 'Walnut desk', price: '250.00', inventory: 5 });
    await createOrder(own, { items: [{ product_id: product.id, quantity: 1 }] });
    const order = await createOrder(own, { items: [{ product_id: product.id, quantity: 2 }] });
    await own.put(`${T}/order_confirmation`, { subject: 'Saved {{ order.order_number }}' });
    const saved = await own.post(`${T}/order_confirmation/preview`, {});
    expect(saved.json().data.subject).toBe(`Saved ${order.order_number}`);
    expect(saved.json().data.html).toContain('Walnut desk');
    expect(saved.json().data.html).toContain('$500.00');
    const draft = await own.post(`${T}/order_confirmation/preview`, {
      subject: 'Draft {{ order.total | money }}',
      text: '{{ customer.email }}',
    });
    expect(draft.json().data).toMatchObject({
      subject: 'Draft $500.00',
      text: `${order.customer.email}\n`,
    });
    expect((await templateOf(own, 'order_confirmation')).subject).toBe('Saved {{ order.order_number }}');
  });

  it('escapes values in html, not in subject and text; `| raw` opts out', async () => {
    const { api: own } = await newStore();
    const product = await createProduct(own, {
      name: '<script>alert(1)</script>',
      price: '5.00',
      inventory: 5,
    });
    await createOrder(own, { items: [{ product_id: product.id, quantity: 1 }] });
    const res = await own.post(`${T}/order_confirmation/preview`, {
      subject: '{{ order.line_items[0].name }}',
    });
    const { subject, html, text } = res.json().data;
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).not.toContain('<script>');
    expect(text).toContain('<script>alert(1)</script>');
    expect(subject).toBe('<script>alert(1)</script>');
    const raw = await own.post(`${T}/order_confirmation/preview`, {
      html: '<p>{{ order.line_items[0].name | raw }}</p>',
    });
    expect(raw.json().data.html).toBe('<p><script>alert(1)</script></p>');
  });

  it('makes the subject one trimmed line', async () => {
    const res = await api.post(`${T}/order_confirmation/preview`, {
      subject: '  Order\n  {{ order.order_number }}\r\n  ready  ',
    });
    expect(res.json().data.subject).toBe('Order 1001 ready');
  });
});

describe('POST /api/v1/notifications/templates/{kind}/test', () => {
  it('queues one test message to the address and answers its log record with 202, even when the kind is off', async () => {
    const { api: own, store } = await newStore();
    await own.put(`${T}/refund_issued`, { enabled: false });
    const res = await own.post(`${T}/refund_issued/test`, { to: 'merchant@example.com' });
    expect(res.statusCode, res.body).toBe(202);
    const record = res.json().data;
    expect(record).toMatchObject({
      kind: 'refund_issued',
      to: 'merchant@example.com',
      status: 'pending',
      attempts: 0,
      order_id: null,
      sent_at: null,
    });
    const rows = await app.database.db
      .selectFrom('notifications')
      .selectAll()
      .where('store_id', '=', store.id)
      .execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ id: record.id, test: true, to_email: 'merchant@example.com' });
  });

  it('refuses a missing or malformed address with 400', async () => {
    for (const body of [{}, { to: 'not an address' }, { to: 'a@example.com', cc: 'b@example.com' }]) {
      const res = await api.post(`${T}/order_confirmation/test`, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
    }
  });
});

describe('scopes and stores', () => {
  it('needs settings:read to read and settings:write to change, preview or test', async () => {
    const { store } = await createStoreWithKey(app);
    const reader = client(
      app,
      (await app.services.stores.createApiKey(store.id, { scopes: ['settings:read'] })).key,
    );
    const none = client(
      app,
      (await app.services.stores.createApiKey(store.id, { scopes: ['orders:read'] })).key,
    );
    expect((await reader.get(T)).statusCode).toBe(200);
    expect((await reader.get(`${T}/new_order`)).statusCode).toBe(200);
    expect((await none.get(T)).statusCode).toBe(403);
    expect((await none.get(`${T}/new_order`)).statusCode).toBe(403);
    for (const res of [
      await reader.put(`${T}/new_order`, { enabled: false }),
      await reader.del(`${T}/new_order`),
      await reader.post(`${T}/new_order/preview`, {}),
      await reader.post(`${T}/new_order/test`, { to: 'a@example.com' }),
    ]) {
      expect(res.statusCode).toBe(403);
      expect(res.json().error.code).toBe('forbidden');
    }
    expect((await client(app).get(T)).statusCode).toBe(401);
  });

  it("never shows a store another store's templates or orders", async () => {
    const a = await newStore();
    const b = await newStore();
    await b.api.put(`${T}/order_confirmation`, { subject: 'B only', enabled: false });
    const product = await createProduct(b.api, { name: 'B secret product', price: '9.00', inventory: 5 });
    await createOrder(b.api, { items: [{ product_id: product.id, quantity: 1 }] });
    const mine = await templateOf(a.api, 'order_confirmation');
    expect(mine).toMatchObject({ enabled: true, customised: false });
    expect(mine.subject).not.toBe('B only');
    const preview = (await a.api.post(`${T}/order_confirmation/preview`, {})).json().data;
    expect(preview.html).not.toContain('B secret product');
    expect(preview.html).toContain('Organic cotton T-shirt');
    await a.api.del(`${T}/order_confirmation`);
    expect((await templateOf(b.api, 'order_confirmation')).subject).toBe('B only');
  });
});
