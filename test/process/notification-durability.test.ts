import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { queueNotification } from '../../src/modules/notifications/index.js';
import { type DatabaseHandle, openDatabase } from '../../src/platform/db/database.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
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
import { type CaughtMessage, type SmtpCatcher, startSmtpCatcher } from '../helpers/smtp-catcher.js';
import { WorkerProcess } from '../helpers/worker-process.js';

/**
 * E-mail delivery across a worker killed with -9 mid-send (contract §13: at least once, a stable
 * Message-ID). The SMTP server accepts a few messages, then stalls before answering the data of the
 * rest, so the worker dies with sends in flight; a new worker sends them once their lease ends.
 * Orders are placed over HTTP on an `emporium serve --no-worker`; their confirmations are queued from
 * this process, as a cause's transaction queues them.
 */
const mode = inject('databaseMode');
const MESSAGES = 40;
/** Accepted before the server starts stalling. */
const ACCEPTED_FIRST = 5;
/** The worker's default number of messages claimed and unrecorded (notificationJobs's `concurrency`). */
const CONCURRENCY = 32;

let dataDir: string;
let env: Env;
let testDatabase: TestDatabase | undefined;
let server: ServerProcess;
let database: DatabaseHandle;
let smtp: SmtpCatcher;
let stalling = true;

beforeAll(async () => {
  smtp = await startSmtpCatcher({
    fault: () => (stalling && smtp.received.length > ACCEPTED_FIRST ? 'stall' : undefined),
  });
  dataDir = makeDataDir('mail');
  env = {
    DATA_DIR: dataDir,
    APP_SECRET: 'durability-app-secret-0123456789abcdef',
    RATE_LIMIT_PER_MINUTE: '100000',
    SMTP_URL: smtp.url,
    // The lease is 2 × the SMTP time-out + 10 s: 12 s here.
    MAIL_TIMEOUT_MS: '1000',
    MAIL_RETRY_SCHEDULE: '1,1,1',
  };
  if (mode === 'postgres') {
    testDatabase = await createTestDatabase();
    env.DATABASE_URL = testDatabase.url;
  }
  server = await ServerProcess.start(env, { args: ['serve', '--no-worker'] });
  database = openDatabase(testDatabase?.url ?? embeddedDatabaseUrl(dataDir), { max: 4 });
}, 180_000);

afterAll(async () => {
  await Promise.all([...WorkerProcess.running].map((worker) => worker.kill()));
  await database?.close();
  if (server) await server.stop().catch(() => server.kill());
  await killLeftovers();
  await cleanupDataDir(dataDir);
  await testDatabase?.drop();
  await smtp?.close();
});

async function api(key: string, path: string, body: unknown) {
  const res = await server.fetch(path, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { data: { id: string } }).data;
}

/** A store, a product and `count` orders over HTTP; one order confirmation queued per order. */
async function ordersWithConfirmations(slug: string, count: number) {
  const { store } = await runCliJson<{ store: { id: string } }>(
    ['store', 'create', '--slug', slug, '--name', 'Crash Mugs'],
    env,
  );
  const { key } = await runCliJson<{ key: string }>(
    ['api-key', 'create', '--store', slug, '--scopes', 'products:write,orders:write'],
    env,
  );
  const product = await api(key, '/api/v1/products', { name: 'Mug', price: '8.00', inventory: 10_000 });
  const orders: { id: string; to: string }[] = [];
  for (let n = 0; n < count; n++) {
    const to = `buyer${n}@example.com`;
    const order = await api(key, '/api/v1/orders', {
      customer: { email: to, first_name: 'Ada', last_name: `Buyer ${n}` },
      items: [{ product_id: product.id, quantity: 1 }],
    });
    orders.push({ id: order.id, to });
  }
  await database.db.transaction().execute(async (tx) => {
    for (const order of orders)
      await queueNotification(tx, {
        storeId: store.id,
        kind: 'order_confirmation',
        to: order.to,
        orderId: order.id,
        dedupeKey: `order_confirmation:${order.id}`,
      });
  });
  return { storeId: store.id, orders };
}

async function confirmationsOf(storeId: string) {
  return database.db
    .selectFrom('notifications')
    .select(['id', 'to_email', 'status', 'attempts', 'locked_until', 'subject'])
    .where('store_id', '=', storeId)
    .where('kind', '=', 'order_confirmation')
    .execute();
}

async function waitFor(check: () => Promise<boolean> | boolean, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(100);
  }
}

const buyers = (messages: CaughtMessage[]) =>
  messages.filter((m) => m.envelope.to.some((to) => to.startsWith('buyer')));

describe('e-mail on real worker processes', () => {
  it('kill -9 mid-send: after the lease a new worker sends every message, under its one Message-ID', async () => {
    const { storeId, orders } = await ordersWithConfirmations('mailcrash', MESSAGES);

    const first = await WorkerProcess.start(env);
    // A few accepted, then every connection of the pool stalls with a message's data unanswered.
    await waitFor(() => smtp.received.length >= ACCEPTED_FIRST + 4, 60_000, 'stalled sends');
    await sleep(300);
    expect(await first.kill()).toEqual({ code: null, signal: 'SIGKILL' });
    const acceptedBeforeKill = buyers(smtp.messages).length;
    const atKill = await confirmationsOf(storeId);
    const leased = atKill.filter((row) => row.status === 'pending' && row.locked_until !== null);
    expect(leased.length).toBeGreaterThan(0);
    expect(leased.length).toBeLessThanOrEqual(CONCURRENCY);

    stalling = false;
    const killedAt = Date.now();
    const second = await WorkerProcess.start(env);
    const distinctIds = async () =>
      new Set(
        await Promise.all(buyers(smtp.messages).map(async (m) => (await simpleParser(m.raw)).messageId)),
      );
    await waitFor(async () => (await distinctIds()).size >= MESSAGES, 90_000, 'every message accepted');
    await waitFor(
      async () => (await confirmationsOf(storeId)).every((row) => row.status === 'sent'),
      30_000,
      'every message recorded sent',
    );
    const recoveredMs = Date.now() - killedAt;
    expect(await second.stop()).toEqual({ code: 0, signal: null });
    expect(second.problems()).toEqual([]);

    const rows = await confirmationsOf(storeId);
    const accepted = await Promise.all(buyers(smtp.messages).map((m) => simpleParser(m.raw)));
    const ids = await distinctIds();
    // Every queued message arrived, each under `<its id@MAIL_FROM's domain>`, to its own buyer.
    expect(ids).toEqual(new Set(rows.map((row) => `<${row.id}@localhost>`)));
    for (const row of rows) {
      const copies = accepted.filter((mail) => mail.messageId === `<${row.id}@localhost>`);
      expect(copies.length).toBeGreaterThanOrEqual(1);
      for (const copy of copies) {
        expect(copy.to && !Array.isArray(copy.to) ? copy.to.text : '').toBe(row.to_email);
        expect(copy.subject).toBe(row.subject);
      }
    }
    expect(new Set(rows.map((row) => row.to_email))).toEqual(new Set(orders.map((o) => o.to)));
    // Only what the dead worker had claimed was tried twice; a copy accepted twice is at most one of those.
    const twice = rows.filter((row) => row.attempts === 2);
    expect(twice.map((row) => row.id).sort()).toEqual(leased.map((row) => row.id).sort());
    expect(rows.filter((row) => row.attempts === 1)).toHaveLength(MESSAGES - leased.length);
    expect(accepted.length - ids.size).toBeLessThanOrEqual(leased.length);
    console.log(
      `[${mode}] kill -9 with ${leased.length} messages leased (${acceptedBeforeKill} accepted before); ` +
        `recovered in ${recoveredMs} ms (the 12 s lease included): ${accepted.length} accepted, ${ids.size} distinct Message-IDs`,
    );
  }, 240_000);
});
