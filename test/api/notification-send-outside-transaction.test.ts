import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BackgroundWorker } from '../../src/worker.js';
import { buildTestApp, startTestWorker, type TestApp } from '../helpers/app.js';
import { client, createProduct, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { type SmtpCatcher, startSmtpCatcher } from '../helpers/smtp-catcher.js';

/**
 * Contract §13: an e-mail is sent "never from a request and never inside a transaction". The SMTP
 * server holds one message's data unanswered, so the worker is caught in the middle of sending it;
 * meanwhile no session of the database is inside a transaction and the message's row is not locked.
 */
const STALLED = 'stalled@example.com';

let app: TestApp;
let smtp: SmtpCatcher;
let worker: BackgroundWorker;

beforeAll(async () => {
  smtp = await startSmtpCatcher({ fault: (m) => (m.envelope.to.includes(STALLED) ? 'stall' : undefined) });
  app = await buildTestApp({
    config: { ...UNLIMITED, smtpUrl: smtp.url, mailTimeoutMs: 3000, mailRetryScheduleMs: [60_000] },
  });
  worker = startTestWorker(app);
});
afterAll(async () => {
  await smtp?.close();
  await worker?.stop();
  await app?.close();
});

describe('while the worker sends an e-mail', () => {
  it('holds no transaction and no lock on its row; the request that queued it had answered', async () => {
    const { key } = await createStoreWithKey(app);
    const api = client(app, key);
    const product = await createProduct(api, { price: '5.00', inventory: 10 });
    const res = await api.post('/api/v1/orders', {
      customer: { email: STALLED },
      items: [{ product_id: product.id, quantity: 1 }],
      send_receipt: true,
    });
    // The request answered before anything was sent: the message is only queued.
    expect(res.statusCode, res.body).toBe(201);
    expect(smtp.received.filter((m) => m.envelope.to.includes(STALLED))).toHaveLength(0);

    // The worker has sent the message's data and waits for the server's answer.
    const deadline = Date.now() + 10_000;
    while (!smtp.received.some((m) => m.envelope.to.includes(STALLED))) {
      if (Date.now() > deadline) throw new Error('the worker did not send the message');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const { db } = app.database;
    // A transaction held across the send would show as a session idle in it while the worker waits.
    const inTransaction = await sql<{ pid: number; state: string; query: string }>`
      SELECT pid, state, query FROM pg_stat_activity
      WHERE datname = current_database() AND pid <> pg_backend_pid()
        AND state LIKE 'idle in transaction%'`.execute(db);
    expect(inTransaction.rows).toEqual([]);
    const row = await db.transaction().execute((tx) =>
      sql<{ status: string; attempts: number }>`
        SELECT status, attempts FROM notifications WHERE to_email = ${STALLED} FOR UPDATE NOWAIT`.execute(tx),
    );
    // Claimed (its attempt counted, its lease taken) and committed before the send began.
    expect(row.rows).toEqual([{ status: 'pending', attempts: 1 }]);
  });
});
