import { type ParsedMail, simpleParser } from 'mailparser';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queueNotification } from '../../src/modules/notifications/index.js';
import { loggerOptions } from '../../src/platform/log.js';
import { type BackgroundWorker, startBackgroundWorker } from '../../src/worker.js';
import { buildTestApp, startTestWorker, type TestApp } from '../helpers/app.js';
import { client, createProduct, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { createOrder } from '../helpers/order-factories.js';
import {
  type CaughtMessage,
  type SmtpCatcher,
  type SmtpFault,
  startSmtpCatcher,
} from '../helpers/smtp-catcher.js';

/**
 * The send job end to end (contract §13): messages queued as their causes queue them, sent by the
 * background worker to a real SMTP server, read back with a real MIME parser. The server refuses
 * some recipients (a 451 once, a 451 always, a 550) to drive the retry schedule, shortened here.
 */

const RETRY_MS = 300;
/** Per recipient, the answer to its n-th message (0 first); undefined accepts it. */
const faults = new Map<string, (n: number) => SmtpFault | undefined>();
/** When each message's data arrived, by recipient. */
const arrivals = new Map<string, number[]>();

let app: TestApp;
let smtp: SmtpCatcher;
let worker: BackgroundWorker;

beforeAll(async () => {
  smtp = await startSmtpCatcher({
    fault(message) {
      const to = message.envelope.to[0] ?? '';
      const seen = [...(arrivals.get(to) ?? []), Date.now()];
      arrivals.set(to, seen);
      return faults.get(to)?.(seen.length - 1);
    },
  });
  app = await buildTestApp({
    config: { ...UNLIMITED, smtpUrl: smtp.url, mailRetryScheduleMs: [RETRY_MS, RETRY_MS] },
  });
  worker = startTestWorker(app);
});
afterAll(async () => {
  await worker?.stop();
  await app?.close();
  await smtp?.close();
});

const uniqueEmail = (label: string) => `${label}.${Math.random().toString(36).slice(2, 10)}@example.com`;

/** A store (contact e-mail set), an order of one product, and an order confirmation queued for it. */
async function orderWithConfirmation(to: string) {
  const { store, key } = await createStoreWithKey(app);
  const contact = uniqueEmail('owner');
  await app.services.stores.updateSettings(store.id, { contact_email: contact });
  const api = client(app, key);
  const product = await createProduct(api, { name: 'Blue Mug', price: '12.50', inventory: 100 });
  const order = await createOrder(api, {
    customer: { email: to, first_name: 'Ada', last_name: 'Lovelace' },
    items: [{ product_id: product.id, quantity: 2 }],
  });
  await queueNotification(app.database.db, {
    storeId: store.id,
    kind: 'order_confirmation',
    to,
    orderId: order.id,
    dedupeKey: `order_confirmation:${order.id}`,
  });
  const row = await rowOf(store.id, to);
  return { store, key, api, contact, order, id: row.id };
}

async function rowOf(storeId: string, to: string) {
  return app.database.db
    .selectFrom('notifications')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('to_email', '=', to)
    .orderBy('id', 'desc')
    .executeTakeFirstOrThrow();
}

/** Waits until the store's message to `to` is no longer pending; returns its row. */
async function settled(storeId: string, to: string, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const row = await rowOf(storeId, to);
    if (row.status !== 'pending') return row;
    if (Date.now() > deadline) throw new Error(`still pending after ${timeoutMs} ms: ${JSON.stringify(row)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const parse = (message: CaughtMessage): Promise<ParsedMail> => simpleParser(message.raw);
const receivedBy = (to: string) => smtp.received.filter((m) => m.envelope.to.includes(to));

describe('sending through SMTP', () => {
  it('delivers an order confirmation as a mail client shows it, the same Message-ID across a 451 retry', async () => {
    const to = uniqueEmail('buyer');
    faults.set(to, (n) => (n === 0 ? { code: 451, message: 'Greylisted, try again later' } : undefined));
    const { store, api, contact, order, id } = await orderWithConfirmation(to);

    const accepted = await smtp.waitFor((m) => m.envelope.to.includes(to), 10_000);
    const row = await settled(store.id, to);
    const tries = receivedBy(to);
    expect(tries).toHaveLength(2);
    const [first, second] = await Promise.all(tries.map(parse));
    // The retry is the same message: one Message-ID, from the notification's id and MAIL_FROM's domain.
    expect(first?.messageId).toBe(`<${id}@localhost>`);
    expect(second?.messageId).toBe(first?.messageId);
    const [at1 = 0, at2 = 0] = arrivals.get(to) ?? [];
    expect(at2 - at1).toBeGreaterThanOrEqual(RETRY_MS * 0.9 - 50);

    const mail = await parse(accepted);
    expect(mail.from?.value).toEqual([{ name: 'Test Store', address: 'no-reply@localhost' }]);
    expect(mail.replyTo?.value).toEqual([{ name: '', address: contact }]);
    expect(mail.to && !Array.isArray(mail.to) ? mail.to.value : []).toEqual([{ name: '', address: to }]);
    expect(mail.subject).toContain(`#${order.order_number}`);
    expect(mail.subject).toContain('Test Store');
    expect(accepted.raw).toMatch(/^Content-Type: multipart\/(alternative|related)/im);
    expect(accepted.raw).toMatch(/Content-Type: multipart\/alternative/i);
    expect(mail.headers.has('x-mailer')).toBe(false);
    const link = `http://localhost:3000/shop/${store.slug}/account/orders/${order.order_number}`;
    expect(mail.html).toEqual(expect.stringContaining(`href="${link}"`));
    expect(mail.html).toContain('Blue Mug');
    expect(mail.text).toContain(link);
    expect(mail.text).toContain('Blue Mug');
    expect(mail.text).not.toMatch(/<[a-z][^>]*>/i);

    expect(row).toMatchObject({
      status: 'sent',
      attempts: 2,
      last_error: null,
      subject: mail.subject,
      locked_until: null,
    });
    expect(row.sent_at).toBeInstanceOf(Date);
    // The merchant's log says the same.
    const log = await api.get(`/api/v1/notifications?order_id=${order.id}&kind=order_confirmation`);
    expect(log.statusCode).toBe(200);
    expect(log.json().data).toEqual([
      {
        id,
        kind: 'order_confirmation',
        to,
        subject: mail.subject,
        status: 'sent',
        attempts: 2,
        last_error: null,
        order_id: order.id,
        created_at: expect.any(String),
        sent_at: row.sent_at?.toISOString(),
      },
    ]);
  });

  it('fails a message at once on a 5xx answer, with the reason and the rendered subject', async () => {
    const to = uniqueEmail('gone');
    faults.set(to, () => ({ code: 550, message: 'No such user here' }));
    const { store, api, order, id } = await orderWithConfirmation(to);

    const row = await settled(store.id, to);
    const logged = (await api.get(`/api/v1/notifications?status=failed&order_id=${order.id}`)).json().data;
    expect(logged).toEqual([
      expect.objectContaining({ id, status: 'failed', attempts: 1, last_error: row.last_error }),
    ]);
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS * 3));
    expect(receivedBy(to)).toHaveLength(1);
    expect(smtp.messages.filter((m) => m.envelope.to.includes(to))).toHaveLength(0);
    expect(row).toMatchObject({ status: 'failed', attempts: 1, sent_at: null, locked_until: null });
    expect(row.last_error).toMatch(/550/);
    expect(row.last_error).toContain('No such user here');
    expect(row.subject).toContain(`#${order.order_number}`);
    expect((await rowOf(store.id, to)).attempts).toBe(1);
  });

  it('retries a 4xx on the schedule and fails once it is spent', async () => {
    const to = uniqueEmail('always');
    faults.set(to, () => ({ code: 451, message: 'Mailbox busy' }));
    const { store } = await orderWithConfirmation(to);

    const row = await settled(store.id, to);
    // The first attempt and one per delay of the schedule (two here), then nothing more.
    expect(row).toMatchObject({ status: 'failed', attempts: 3, sent_at: null });
    expect(row.last_error).toMatch(/451/);
    expect(receivedBy(to)).toHaveLength(3);
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS * 3));
    expect(receivedBy(to)).toHaveLength(3);
  });

  it('fails a message whose template does not render, at once, naming the template', async () => {
    const to = uniqueEmail('broken');
    const { store, key } = await createStoreWithKey(app);
    const api = client(app, key);
    const product = await createProduct(api, { name: 'Red Mug', price: '9.00', inventory: 100 });
    const order = await createOrder(api, {
      customer: { email: to, first_name: 'Ada', last_name: 'Lovelace' },
      items: [{ product_id: product.id, quantity: 1 }],
    });
    // Written as an older release might have stored it: the API refuses such a template (unknown filter).
    await app.database.db
      .insertInto('notification_templates')
      .values({ store_id: store.id, kind: 'order_confirmation', html: '<p>{{ order.id | shout }}</p>' })
      .execute();
    await queueNotification(app.database.db, {
      storeId: store.id,
      kind: 'order_confirmation',
      to,
      orderId: order.id,
    });

    const row = await settled(store.id, to);
    expect(row).toMatchObject({ status: 'failed', attempts: 1, sent_at: null });
    expect(row.last_error).toMatch(/could not be rendered.*html/);
    expect(row.last_error).toContain('shout');
    expect(receivedBy(to)).toHaveLength(0);
  });
});

describe('test sends', () => {
  it("sends the template API's test send through the worker, rendered with the preview's data", async () => {
    const to = uniqueEmail('tester');
    const { store, key } = await createStoreWithKey(app);
    const res = await client(app, key).post('/api/v1/notifications/templates/shipping_confirmation/test', {
      to,
    });
    expect(res.statusCode, res.body).toBe(202);
    const { id } = res.json().data;
    const mail = await parse(await smtp.waitFor((m) => m.envelope.to.includes(to), 10_000));
    expect(mail.messageId).toBe(`<${id}@localhost>`);
    expect(mail.from?.value).toEqual([{ name: 'Test Store', address: 'no-reply@localhost' }]);
    expect(mail.html).toBeTruthy();
    expect(mail.text).toBeTruthy();
    expect(await settled(store.id, to)).toMatchObject({
      id,
      test: true,
      status: 'sent',
      subject: mail.subject,
    });
  });
});

describe('resend', () => {
  it('queues a new message (202) that arrives with a Message-ID of its own', async () => {
    const to = uniqueEmail('again');
    const { store, api, order, id } = await orderWithConfirmation(to);
    const original = await parse(await smtp.waitFor((m) => m.envelope.to.includes(to), 10_000));
    await settled(store.id, to);

    const res = await api.post(`/api/v1/notifications/${id}/resend`, undefined);
    expect(res.statusCode, res.body).toBe(202);
    const record = res.json().data;
    expect(record).toMatchObject({
      kind: 'order_confirmation',
      to,
      order_id: order.id,
      status: 'pending',
      attempts: 0,
      last_error: null,
      sent_at: null,
    });
    expect(record.id).not.toBe(id);
    expect(Object.keys(record).sort()).toEqual(
      [
        'attempts',
        'created_at',
        'id',
        'kind',
        'last_error',
        'order_id',
        'sent_at',
        'status',
        'subject',
        'to',
      ].sort(),
    );

    await smtp.waitFor((m) => m.envelope.to.includes(to) && m.raw.includes(record.id), 10_000);
    const copies = await Promise.all(smtp.messages.filter((m) => m.envelope.to.includes(to)).map(parse));
    expect(copies.map((m) => m.messageId)).toEqual([original.messageId, `<${record.id}@localhost>`]);
    expect(copies[1]?.subject).toBe(original.subject);
    const row = await settled(store.id, to);
    expect(row).toMatchObject({
      id: record.id,
      resend_of: id,
      dedupe_key: null,
      status: 'sent',
      attempts: 1,
    });
  });

  it("answers 404 for an unknown id, a malformed one and another store's, 403 without settings:write", async () => {
    const to = uniqueEmail('private');
    const { id } = await orderWithConfirmation(to);
    const other = await createStoreWithKey(app);
    const otherApi = client(app, other.key);
    for (const path of [
      `/api/v1/notifications/${id}/resend`,
      '/api/v1/notifications/0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b/resend',
      '/api/v1/notifications/not-an-id/resend',
    ]) {
      const res = await otherApi.post(path, undefined);
      expect(res.statusCode, path).toBe(404);
      expect(res.json().error.code).toBe('not_found');
    }
    const reader = await app.services.stores.createApiKey(other.store.id, { scopes: ['settings:read'] });
    const forbidden = await client(app, reader.key).post(`/api/v1/notifications/${id}/resend`, undefined);
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json().error.code).toBe('forbidden');
    // Nothing was queued for the other store, nor a second copy for the first.
    const rows = await app.database.db
      .selectFrom('notifications')
      .select('id')
      .where('to_email', '=', to)
      .execute();
    expect(rows).toHaveLength(1);
  });
});

describe('without SMTP_URL', () => {
  let logApp: TestApp;
  let logWorker: BackgroundWorker;
  const lines: string[] = [];

  beforeAll(async () => {
    logApp = await buildTestApp({ config: { ...UNLIMITED, smtpUrl: undefined } });
    logWorker = startBackgroundWorker({
      config: logApp.config,
      db: logApp.database.db,
      pool: logApp.database.pool,
      logger: pino(loggerOptions('info'), { write: (line: string) => void lines.push(line) }),
    });
  });
  afterAll(async () => {
    await logWorker?.stop();
    await logApp?.close();
  });

  it('writes the message to the log and records it sent with the contract’s last_error', async () => {
    const to = uniqueEmail('dev');
    const { store, key } = await createStoreWithKey(logApp);
    const api = client(logApp, key);
    const product = await createProduct(api, { name: 'Green Mug', price: '5.00', inventory: 100 });
    const order = await createOrder(api, {
      customer: { email: to, first_name: 'Ada', last_name: 'Lovelace' },
      items: [{ product_id: product.id, quantity: 1 }],
    });
    await queueNotification(logApp.database.db, {
      storeId: store.id,
      kind: 'order_confirmation',
      to,
      orderId: order.id,
    });

    const deadline = Date.now() + 10_000;
    let row = await logApp.database.db
      .selectFrom('notifications')
      .selectAll()
      .where('to_email', '=', to)
      .executeTakeFirstOrThrow();
    while (row.status === 'pending' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      row = await logApp.database.db
        .selectFrom('notifications')
        .selectAll()
        .where('to_email', '=', to)
        .executeTakeFirstOrThrow();
    }
    expect(row).toMatchObject({ status: 'sent', attempts: 1, last_error: 'no SMTP_URL: written to the log' });
    expect(row.subject).toContain(`#${order.order_number}`);

    const logged = lines
      .map((line) => JSON.parse(line) as { msg: string; mail?: Record<string, unknown> })
      .find((line) => line.mail?.to === to);
    expect(logged?.msg).toMatch(/SMTP_URL is not set; e-mail written to the log/);
    expect(logged?.mail).toMatchObject({
      from: '"Test Store" <no-reply@localhost>',
      messageId: `<${row.id}@localhost>`,
      subject: row.subject,
      text: expect.stringContaining(`/account/orders/${order.order_number}`),
      html: expect.stringContaining('Green Mug'),
    });
  });
});
