import { afterAll, beforeAll, expect, it } from 'vitest';
import { recordEvent } from '../../src/platform/outbox.js';
import type { BackgroundWorker } from '../../src/worker.js';
import { buildTestApp, startTestWorker, type TestApp } from '../helpers/app.js';
import { client, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { type SmtpCatcher, startSmtpCatcher } from '../helpers/smtp-catcher.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

let app: TestApp;
let smtp: SmtpCatcher;
let receiver: WebhookReceiver;
let worker: BackgroundWorker;

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  receiver = await startWebhookReceiver(() => ({ status: 400, body: 'no' }));
  app = await buildTestApp({ config: { ...UNLIMITED, allowPrivateUrls: true, smtpUrl: smtp.url } });
  worker = startTestWorker(app);
});
afterAll(async () => {
  await worker.stop();
  await app.close();
  await receiver.close();
  await smtp.close();
});

it('a webhook disabled after failing for WEBHOOK_DISABLE_AFTER_HOURS e-mails the store admins', async () => {
  const { store, key } = await createStoreWithKey(app);
  const admin = `admin.${Date.now()}@example.com`;
  await app.services.stores.createAdminUser({
    email: admin,
    password: 'long enough password',
    storeSlug: store.slug,
  });
  const api = client(app, key);
  const hook = (await api.post('/api/v1/webhooks', { url: `${receiver.url}/down`, events: ['*'] })).json()
    .data;
  await app.database.db
    .updateTable('webhooks')
    .set({ failing_since: new Date(Date.now() - 121 * 3600_000) })
    .where('id', '=', hook.id)
    .execute();
  await recordEvent(app.database.db, store.id, 'order.created', { orderId: 'x' });
  const mail = await smtp.waitFor((m) => (m.to ?? '').includes(admin), 15_000);
  expect(mail.subject).toMatch(/webhook was disabled/);
  expect(mail.text).toContain(hook.url);
  expect(mail.text).toContain('no successful delivery for 120 hours');
  const after = (await api.get(`/api/v1/webhooks/${hook.id}`)).json().data;
  expect(after).toMatchObject({ active: false, disabled_reason: 'no successful delivery for 120 hours' });
});
