import { sql } from 'kysely';
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createFcmProvider,
  createLogPushProvider,
  createPushWorker,
  type PushWorker,
  queueOrderPush,
} from '../../src/modules/mobile/index.js';
import { newId } from '../../src/platform/ids.js';
import { createSafeFetch } from '../../src/platform/net/safe-fetch.js';
import { buildTestApp, startTestWorker, type TestApp } from '../helpers/app.js';
import { UNLIMITED } from '../helpers/catalog-factories.js';
import { createCustomers, createStoreWithKey } from '../helpers/factories.js';
import { type FakeFcm, INVALID_TOKEN, startFakeFcm, UNREGISTERED } from '../helpers/fake-fcm.js';
import { type SmtpCatcher, startSmtpCatcher } from '../helpers/smtp-catcher.js';

let app: TestApp;
let google: FakeFcm;
let smtp: SmtpCatcher;
let storeA: { id: string; slug: string };
let storeB: { id: string; slug: string };
let tokenSeq = 0;

beforeAll(async () => {
  google = await startFakeFcm();
  smtp = await startSmtpCatcher();
  app = await buildTestApp({
    config: { ...UNLIMITED, allowPrivateUrls: true, smtpUrl: smtp.url, fcm: google.config },
  });
  storeA = (await createStoreWithKey(app)).store;
  storeB = (await createStoreWithKey(app)).store;
});
afterAll(async () => {
  await app.close();
  await smtp.close();
  await google.close();
});
beforeEach(() => {
  google.sends.length = 0;
  google.respondWith(() => ({ status: 200 }));
});

const db = () => app.database.db;

/** The FCM provider on the fake Google, as the worker builds it when FCM_* is set. */
const fcmProvider = (timeoutMs: number) =>
  createFcmProvider({
    projectId: google.projectId,
    endpoint: google.url,
    account: google.config,
    fetch: createSafeFetch({ allowPrivateUrls: true }),
    timeoutMs,
  });

async function newCustomer(storeId: string) {
  const [customer] = await createCustomers(app, storeId, 1);
  if (!customer) throw new Error('no customer');
  return customer;
}

/** A device row, as POST /api/mobile/device/register would store it. */
async function addDevice(
  storeId: string,
  customerId: string,
  platform: 'ios' | 'android' | 'web' = 'android',
) {
  const token = `fcm-token-${++tokenSeq}-${Math.random().toString(36).slice(2)}`;
  const row = await db()
    .insertInto('customer_devices')
    .values({ id: newId(), store_id: storeId, customer_id: customerId, token, platform })
    .returning(['id', 'token'])
    .executeTakeFirstOrThrow();
  return row;
}

async function setOrderUpdates(storeId: string, customerId: string, orderUpdates: boolean) {
  await db()
    .insertInto('notification_preferences')
    .values({ store_id: storeId, customer_id: customerId, order_updates: orderUpdates, promotions: false })
    .onConflict((oc) => oc.column('customer_id').doUpdateSet({ order_updates: orderUpdates }))
    .execute();
}

const pushesOf = (customerId: string) =>
  db()
    .selectFrom('push_notifications')
    .selectAll()
    .where('customer_id', '=', customerId)
    .orderBy('id')
    .execute();

/** Queues in a transaction of its own; returns how many notifications that added for the customer. */
async function queue(input: Parameters<typeof queueOrderPush>[1]) {
  const before = (await pushesOf(input.customerId)).length;
  await db()
    .transaction()
    .execute((tx) => queueOrderPush(tx, input));
  return (await pushesOf(input.customerId)).length - before;
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Signs a customer in through the storefront (e-mailed code) and returns the session token. */
async function signIn(slug: string, email: string): Promise<string> {
  const requested = await app.server.inject({
    method: 'POST',
    url: `/api/storefront/${slug}/auth/request-code`,
    payload: { email },
  });
  expect(requested.statusCode, requested.body).toBe(202);
  const mail = await smtp.waitFor((m) => m.envelope.to.includes(email));
  const code = /\b(\d{6})\b/.exec(mail.text)?.[1];
  const verified = await app.server.inject({
    method: 'POST',
    url: `/api/storefront/${slug}/auth/verify`,
    payload: { email, code },
  });
  expect(verified.statusCode, verified.body).toBe(200);
  return verified.json().data.token;
}

describe('queueOrderPush', () => {
  it('queues one notification per device of that customer in that store, with title, body and data', async () => {
    const customer = await newCustomer(storeA.id);
    const other = await newCustomer(storeA.id);
    const phone = await addDevice(storeA.id, customer.id, 'ios');
    const tablet = await addDevice(storeA.id, customer.id, 'android');
    await addDevice(storeA.id, other.id);
    // A device row of this customer under another store cannot exist: the database refuses it.
    await expect(addDevice(storeB.id, customer.id)).rejects.toMatchObject({
      code: '23503',
      constraint: 'customer_devices_customer_id_tenant_fkey',
    });

    const queued = await queue({
      storeId: storeA.id,
      customerId: customer.id,
      kind: 'fulfilled',
      orderNumber: '1001',
      tracking: {
        carrier: 'UPS',
        trackingNumber: '1Z999AA10123456784',
        trackingUrl: 'https://ups.example/t/1Z999',
      },
    });
    expect(queued).toBe(2);
    const rows = await pushesOf(customer.id);
    expect(rows.map((r) => r.device_id).sort()).toEqual([phone.id, tablet.id].sort());
    for (const row of rows) {
      expect(row).toMatchObject({
        store_id: storeA.id,
        status: 'pending',
        attempts: 0,
        error: null,
        sent_at: null,
        title: 'Order #1001 is on its way',
        body: 'Shipped with UPS, tracking number 1Z999AA10123456784.',
        data: {
          type: 'order_update',
          kind: 'fulfilled',
          orderNumber: '1001',
          carrier: 'UPS',
          trackingNumber: '1Z999AA10123456784',
          trackingUrl: 'https://ups.example/t/1Z999',
        },
      });
    }
    expect(await pushesOf(other.id)).toEqual([]);
  });

  it('queues nothing when order updates are off; other preferences do not matter', async () => {
    const off = await newCustomer(storeA.id);
    await addDevice(storeA.id, off.id);
    await setOrderUpdates(storeA.id, off.id, false);
    expect(await queue({ storeId: storeA.id, customerId: off.id, kind: 'paid', orderNumber: '1002' })).toBe(
      0,
    );
    expect(await pushesOf(off.id)).toEqual([]);

    const on = await newCustomer(storeA.id);
    await addDevice(storeA.id, on.id);
    await setOrderUpdates(storeA.id, on.id, true); // promotions off, order updates on
    expect(
      await queue({ storeId: storeA.id, customerId: on.id, kind: 'cancelled', orderNumber: '1003' }),
    ).toBe(1);
    expect((await pushesOf(on.id))[0]).toMatchObject({ title: 'Order #1003 was cancelled' });
  });

  it('queues nothing for a customer without devices, or for another store', async () => {
    const bare = await newCustomer(storeA.id);
    expect(await queue({ storeId: storeA.id, customerId: bare.id, kind: 'paid', orderNumber: '1' })).toBe(0);
    const customer = await newCustomer(storeA.id);
    await addDevice(storeA.id, customer.id);
    expect(await queue({ storeId: storeB.id, customerId: customer.id, kind: 'paid', orderNumber: '1' })).toBe(
      0,
    );
    expect(await pushesOf(customer.id)).toEqual([]);
  });

  it('wakes the worker at commit only: a rolled-back transaction queues nothing and notifies no one', async () => {
    const customer = await newCustomer(storeA.id);
    await addDevice(storeA.id, customer.id);
    const listener = new pg.Client({ connectionString: app.testDatabase.url });
    await listener.connect();
    const heard: string[] = [];
    listener.on('notification', (n) => heard.push(n.channel));
    await listener.query('LISTEN emporium_push');
    try {
      await expect(
        db()
          .transaction()
          .execute(async (tx) => {
            await queueOrderPush(tx, {
              storeId: storeA.id,
              customerId: customer.id,
              kind: 'paid',
              orderNumber: '7',
            });
            const inside = await tx
              .selectFrom('push_notifications')
              .select('id')
              .where('customer_id', '=', customer.id)
              .execute();
            expect(inside).toHaveLength(1);
            throw new Error('the order update failed');
          }),
      ).rejects.toThrow('the order update failed');
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await pushesOf(customer.id)).toEqual([]);
      expect(heard).toEqual([]);

      await queue({ storeId: storeA.id, customerId: customer.id, kind: 'paid', orderNumber: '7' });
      await until(
        async () => heard.length,
        (n) => n > 0,
        'the NOTIFY',
      );
      expect(heard).toEqual(['emporium_push']);
      expect(await pushesOf(customer.id)).toHaveLength(1);
    } finally {
      await listener.end();
      // Leave nothing pending for the worker tests below.
      await db().deleteFrom('push_notifications').where('customer_id', '=', customer.id).execute();
    }
  });
});

describe('the push worker (FCM)', () => {
  // Only what each test queues is to be sent.
  beforeAll(async () => {
    await db().deleteFrom('push_notifications').execute();
  });
  const bearerTokens = () => new Set(google.sends.map((s) => s.authorization));

  it('delivers devices registered over /api/mobile to FCM with a bearer token from the token endpoint', async () => {
    const email = `push-${Date.now()}@example.com`;
    const [customer] = await app.services.customers.createMany(storeA.id, [{ email, first_name: 'Ada' }]);
    if (!customer) throw new Error('no customer');
    const session = await signIn(storeA.slug, email);
    const auth = { authorization: `Bearer ${session}` };
    for (const [token, platform] of [
      ['http-token-ios', 'ios'],
      ['http-token-android', 'android'],
    ]) {
      const res = await app.server.inject({
        method: 'POST',
        url: '/api/mobile/device/register',
        headers: auth,
        payload: { token, platform, appVersion: '1.0.0' },
      });
      expect(res.statusCode, res.body).toBe(201);
    }
    const prefs = await app.server.inject({
      method: 'GET',
      url: '/api/mobile/notifications/preferences',
      headers: auth,
    });
    expect(prefs.json().data).toEqual({ orderUpdates: true, promotions: true, backInStock: true });

    const worker = startTestWorker(app);
    try {
      await queue({
        storeId: storeA.id,
        customerId: customer.id,
        kind: 'fulfilled',
        orderNumber: '2001',
        tracking: { carrier: 'DHL', trackingNumber: 'JD0002', trackingUrl: 'https://dhl.example/JD0002' },
      });
      const rows = await until(
        () => pushesOf(customer.id),
        (r) => r.length === 2 && r.every((p) => p.status === 'sent'),
        'both pushes to be sent',
      );
      for (const row of rows) {
        expect(row).toMatchObject({ attempts: 1, error: null, locked_until: null });
        expect(row.sent_at).toBeInstanceOf(Date);
      }
    } finally {
      await worker.stop();
    }
    expect(google.sends).toHaveLength(2);
    expect(google.sends.map((s) => s.body.message.token).sort()).toEqual([
      'http-token-android',
      'http-token-ios',
    ]);
    for (const send of google.sends) {
      expect(send.path).toBe(`/v1/projects/${google.projectId}/messages:send`);
      expect(send.body).toEqual({
        message: {
          token: send.body.message.token,
          notification: {
            title: 'Order #2001 is on its way',
            body: 'Shipped with DHL, tracking number JD0002.',
          },
          data: {
            type: 'order_update',
            kind: 'fulfilled',
            orderNumber: '2001',
            carrier: 'DHL',
            trackingNumber: 'JD0002',
            trackingUrl: 'https://dhl.example/JD0002',
          },
        },
      });
    }
    // The bearer token is one the token endpoint issued after verifying the signed assertion.
    const [bearer] = [...bearerTokens()];
    expect(bearerTokens().size).toBe(1);
    expect(google.issued.has(bearer?.replace(/^Bearer /, '') ?? '')).toBe(true);
    expect(google.tokenRequests.some((r) => r.grantType?.endsWith('jwt-bearer') && !r.refused)).toBe(true);

    // Turned off over the API: the next order update queues nothing.
    const put = await app.server.inject({
      method: 'PUT',
      url: '/api/mobile/notifications/preferences',
      headers: auth,
      payload: { orderUpdates: false },
    });
    expect(put.statusCode, put.body).toBe(200);
    expect(
      await queue({ storeId: storeA.id, customerId: customer.id, kind: 'paid', orderNumber: '2002' }),
    ).toBe(0);
  });

  it('UNREGISTERED or an invalid token deletes the device; the other devices still get theirs', async () => {
    const customer = await newCustomer(storeA.id);
    const gone = await addDevice(storeA.id, customer.id);
    const bad = await addDevice(storeA.id, customer.id);
    const alive = await addDevice(storeA.id, customer.id);
    google.respondWith((send) => {
      if (send.body.message.token === gone.token) return UNREGISTERED;
      if (send.body.message.token === bad.token) return INVALID_TOKEN;
      return { status: 200 };
    });
    const worker = startTestWorker(app);
    try {
      await queue({ storeId: storeA.id, customerId: customer.id, kind: 'paid', orderNumber: '3001' });
      await until(
        () =>
          db().selectFrom('customer_devices').select('id').where('customer_id', '=', customer.id).execute(),
        (devices) => devices.length === 1,
        'the dead devices to be deleted',
      );
      const rows = await until(
        () => pushesOf(customer.id),
        (r) => r.length === 1 && r[0]?.status === 'sent',
        'the live device’s push',
      );
      expect(rows[0]?.device_id).toBe(alive.id);
    } finally {
      await worker.stop();
    }
    const devices = await db()
      .selectFrom('customer_devices')
      .select('id')
      .where('customer_id', '=', customer.id)
      .execute();
    expect(devices).toEqual([{ id: alive.id }]);
  });

  describe('retries', () => {
    let worker: PushWorker | undefined;
    const start = (retrySchedule: number[]) => {
      const provider = fcmProvider(2000);
      worker = createPushWorker({
        db: db(),
        pool: app.database.pool,
        provider,
        logger: pino({ level: 'silent' }),
        retrySchedule,
        pollMs: 100,
      });
      worker.start();
      return provider;
    };
    afterAll(async () => worker?.stop());

    it('503 is retried on the schedule until it goes through; the device is kept', async () => {
      const customer = await newCustomer(storeA.id);
      const device = await addDevice(storeA.id, customer.id);
      let calls = 0;
      // (Without a Retry-After: a longer one than the schedule's delay would be honoured.)
      google.respondWith(() => (++calls <= 2 ? { status: 503 } : { status: 200 }));
      const provider = start([0, 0, 0]);
      try {
        await queue({ storeId: storeA.id, customerId: customer.id, kind: 'paid', orderNumber: '4001' });
        const [row] = await until(
          () => pushesOf(customer.id),
          (r) => r[0]?.status === 'sent',
          'the push to go through',
        );
        expect(row).toMatchObject({ attempts: 3, error: null });
      } finally {
        await worker?.stop();
        await provider.close?.();
      }
      expect(
        await db().selectFrom('customer_devices').select('id').where('id', '=', device.id).execute(),
      ).toHaveLength(1);
    });

    it('gives up (failed, with the error) once the schedule is spent; a 4xx fails at once', async () => {
      const customer = await newCustomer(storeA.id);
      const flaky = await addDevice(storeA.id, customer.id);
      const refused = await addDevice(storeA.id, customer.id);
      google.respondWith((send) =>
        send.body.message.token === flaky.token
          ? { status: 500, body: { error: { code: 500, message: 'boom', status: 'INTERNAL' } } }
          : { status: 403, body: { error: { code: 403, message: 'nope', status: 'PERMISSION_DENIED' } } },
      );
      const provider = start([0, 0]);
      try {
        await queue({ storeId: storeA.id, customerId: customer.id, kind: 'paid', orderNumber: '4002' });
        const rows = await until(
          () => pushesOf(customer.id),
          (r) => r.length === 2 && r.every((p) => p.status === 'failed'),
          'both pushes to fail',
        );
        const byDevice = new Map(rows.map((r) => [r.device_id, r]));
        expect(byDevice.get(flaky.id)).toMatchObject({
          attempts: 3,
          error: 'FCM answered 500 INTERNAL: boom',
        });
        expect(byDevice.get(refused.id)).toMatchObject({
          attempts: 1,
          error: 'FCM answered 403 PERMISSION_DENIED: nope',
        });
      } finally {
        await worker?.stop();
        await provider.close?.();
      }
      const devices = await db()
        .selectFrom('customer_devices')
        .select('id')
        .where('customer_id', '=', customer.id)
        .execute();
      expect(devices).toHaveLength(2);
    });
  });

  it('a push queued while the worker is busy with another send goes out at once, not at the safety poll', async () => {
    // One device whose sends FCM holds for 6 s (a batch in flight the whole time), and a healthy one.
    const slowCustomer = await newCustomer(storeA.id);
    const slow = await addDevice(storeA.id, slowCustomer.id);
    const customer = await newCustomer(storeA.id);
    const healthy = await addDevice(storeA.id, customer.id);
    // Other workers are busy too: 30,000 due notifications they have claimed (leased for an hour).
    // Every claim of this worker reads past them, so it is awake for a while at each claim.
    const others = await newCustomer(storeA.id);
    const othersDevice = await addDevice(storeA.id, others.id);
    await sql`
      INSERT INTO push_notifications (id, store_id, customer_id, device_id, title, body, next_attempt_at,
        locked_until, attempts)
      SELECT emporium_uuid_v7(), ${storeA.id}, ${others.id}, ${othersDevice.id}, 't', 'b',
        now() - interval '1 hour', now() + interval '1 hour', 1
      FROM generate_series(1, 30000)`.execute(db());
    await sql`ANALYZE push_notifications`.execute(db());
    /** When FCM received each healthy push, by order number; and who waits for the next receipt. */
    const receivedAt = new Map<string, number>();
    let onReceipt: (() => void) | undefined;
    google.respondWith((send) => {
      if (send.body.message.token === slow.token) return { status: 200, delayMs: 6000 };
      receivedAt.set(send.body.message.data?.orderNumber ?? '', Date.now());
      onReceipt?.();
      return { status: 200 };
    });
    const provider = fcmProvider(20_000);
    // The default safety-net poll (5 s): a lost wake-up would show as a push waiting for it.
    const worker = createPushWorker({
      db: db(),
      pool: app.database.pool,
      provider,
      logger: pino({ level: 'silent' }),
    });
    const queueFor = (customerId: string, orderNumber: string) =>
      db()
        .transaction()
        .execute((tx) => queueOrderPush(tx, { storeId: storeA.id, customerId, kind: 'paid', orderNumber }));
    worker.start();
    const latencies: number[] = [];
    try {
      await queueFor(slowCustomer.id, 'slow');
      await until(
        async () => google.sends.some((s) => s.body.message.token === slow.token),
        (sent) => sent,
        'the slow send to be in flight',
      );
      // Each push is queued just after FCM received the previous one: while the worker records that
      // send and claims again (awake), with the slow send still in flight. A spread of small delays
      // makes the commits land at every point of that cycle.
      for (let round = 0; round < 40; round++) {
        const orderNumber = `fast-${round}`;
        const received = new Promise<void>((resolve) => {
          onReceipt = resolve;
        });
        const queuedAt = Date.now();
        await queueFor(customer.id, orderNumber);
        await Promise.race([received, new Promise((resolve) => setTimeout(resolve, 8000))]);
        latencies.push((receivedAt.get(orderNumber) ?? Number.POSITIVE_INFINITY) - queuedAt);
        if ((latencies.at(-1) ?? 0) >= 2000) break;
        await new Promise((resolve) => setTimeout(resolve, round % 8));
      }
    } finally {
      onReceipt = undefined;
      await worker.stop();
      await provider.close?.();
      await db().deleteFrom('push_notifications').where('customer_id', '=', others.id).execute();
    }
    console.log(
      `push worker busy with a 6 s send: ${latencies.length} pushes queued one after another, queue → FCM max ${Math.max(...latencies)} ms, median ${[...latencies].sort((a, b) => a - b)[latencies.length >> 1]} ms`,
    );
    expect(Math.max(...latencies)).toBeLessThan(2000);
    expect(
      (await pushesOf(customer.id)).map((p) => p.status),
      `device ${healthy.id}`,
    ).toEqual(Array(latencies.length).fill('sent'));
  });

  it('without FCM configured, the log provider marks them sent', async () => {
    const customer = await newCustomer(storeA.id);
    await addDevice(storeA.id, customer.id, 'web');
    const worker = createPushWorker({
      db: db(),
      provider: createLogPushProvider(pino({ level: 'silent' })),
      logger: pino({ level: 'silent' }),
      pollMs: 50,
    });
    worker.start();
    try {
      await queue({ storeId: storeA.id, customerId: customer.id, kind: 'cancelled', orderNumber: '5001' });
      worker.poke();
      await until(
        () => pushesOf(customer.id),
        (r) => r[0]?.status === 'sent',
        'the logged push',
      );
    } finally {
      await worker.stop();
    }
    expect(google.sends).toHaveLength(0);
  });
});
