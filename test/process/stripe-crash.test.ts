import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type DatabaseHandle, openDatabase } from '../../src/platform/db/database.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { type FakeStripe, startFakeStripe, stripeKeys } from '../helpers/fake-stripe.js';
import {
  cleanupDataDir,
  type Env,
  embeddedDatabaseUrl,
  killLeftovers,
  makeDataDir,
  runCliJson,
  ServerProcess,
  sleep,
} from '../helpers/processes.js';

/**
 * A real `emporium serve` killed with -9 while Stripe holds its PaymentIntent request: the order is
 * committed (pending, stock taken) and Stripe received the request, but no answer was recorded.
 * The next server's worker must release that order within the hold time: the PaymentIntent found
 * again by its idempotency key and cancelled, the order cancelled with its stock back.
 */
const mode = inject('databaseMode');
/** 0.05 minutes: the order waits 3 s for its payment. */
const HOLD_MINUTES = 0.05;

let dataDir: string;
let env: Env;
let testDatabase: TestDatabase | undefined;
let server: ServerProcess | undefined;
let database: DatabaseHandle;
let stripe: FakeStripe;

beforeAll(async () => {
  stripe = await startFakeStripe();
  dataDir = makeDataDir('stripe');
  env = {
    DATA_DIR: dataDir,
    APP_SECRET: 'stripe-crash-app-secret-0123456789abcdef',
    STRIPE_API_BASE: stripe.url,
    STRIPE_TIMEOUT_MS: '30000',
    PAYMENT_HOLD_MINUTES: String(HOLD_MINUTES),
    RATE_LIMIT_PER_MINUTE: '100000',
  };
  if (mode === 'postgres') {
    testDatabase = await createTestDatabase();
    env.DATABASE_URL = testDatabase.url;
  }
  server = await ServerProcess.start(env);
  database = openDatabase(testDatabase?.url ?? embeddedDatabaseUrl(dataDir), { max: 2 });
}, 180_000);

afterAll(async () => {
  await database?.close();
  if (server) await server.stop().catch(() => server?.kill());
  await killLeftovers();
  await cleanupDataDir(dataDir);
  await testDatabase?.drop();
  await stripe?.close();
});

describe('a server killed while Stripe holds its PaymentIntent request', () => {
  it('the worker of the next server cancels that order within the hold time, stock back', async () => {
    if (!server) throw new Error('no server');
    const slug = 'crash-shop';
    await runCliJson(['store', 'create', '--slug', slug, '--name', 'Crash Shop'], env);
    const { key } = await runCliJson<{ key: string }>(
      ['api-key', 'create', '--store', slug, '--scopes', 'all'],
      env,
    );
    const call = (srv: ServerProcess, path: string, method = 'GET', body?: unknown) =>
      srv.fetch(path, {
        method,
        headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
    expect((await call(server, '/api/v1/payments/stripe', 'PUT', stripeKeys())).status).toBe(200);
    const created = await call(server, '/api/v1/products', 'POST', {
      name: 'Lamp',
      price: '25.00',
      inventory: 3,
    });
    const product = ((await created.json()) as { data: { id: string } }).data;

    // Stripe takes the PaymentIntent request and never answers; the server dies meanwhile.
    stripe.fail({ kind: 'hang' }, /^\/v1\/payment_intents$/);
    const arrived = stripe.nextRequest(/^\/v1\/payment_intents$/);
    const checkout = server
      .fetch(`/api/storefront/${slug}/checkout`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          email: 'buyer@example.com',
          items: [{ productId: product.id, quantity: 2 }],
          paymentMethod: 'stripe',
        }),
      })
      .catch((error: unknown) => error);
    const request = await arrived;
    const orderId = request.form['metadata[order_id]'];
    expect(orderId).toBeDefined();
    await server.kill();
    expect(await checkout).toBeInstanceOf(Error);
    const killedAt = Date.now();
    stripe.heal();

    const order = await database.db
      .selectFrom('orders')
      .select(['status', 'payment_status'])
      .where('id', '=', orderId as string)
      .executeTakeFirstOrThrow();
    expect(order).toEqual({ status: 'pending', payment_status: 'pending' });
    const stockOf = async () =>
      (
        await database.db
          .selectFrom('products')
          .select('inventory')
          .where('id', '=', product.id)
          .executeTakeFirstOrThrow()
      ).inventory;
    expect(await stockOf()).toBe(1);

    server = await ServerProcess.start(env);
    const deadline = killedAt + HOLD_MINUTES * 60_000 + 30_000;
    let status = 'pending';
    while (status !== 'cancelled' && Date.now() < deadline) {
      await sleep(200);
      status = (
        await database.db
          .selectFrom('orders')
          .select('status')
          .where('id', '=', orderId as string)
          .executeTakeFirstOrThrow()
      ).status;
    }
    expect(status).toBe('cancelled');
    const detail = (await (await call(server, `/api/v1/orders/${orderId}`)).json()) as {
      data: { cancel_reason: string };
    };
    expect(detail.data.cancel_reason).toBe('payment_expired');
    expect(await stockOf()).toBe(3);
    // The PaymentIntent the lost call created was found by its idempotency key and cancelled.
    const intents = [...stripe.intents.values()].filter((pi) => pi.metadata.order_id === orderId);
    expect(intents).toHaveLength(1);
    expect(intents[0]?.status).toBe('canceled');
    stripe.releaseHeld();
  }, 180_000);
});
