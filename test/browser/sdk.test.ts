import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BackgroundWorker } from '../../src/worker.js';
import { buildTestApp, startTestWorker, type TestApp } from '../helpers/app.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { hasChromium, type LaunchedBrowser, launchBrowser } from './chromium.js';

/**
 * The built @emporium/sdk in Chromium, loaded as ES modules exactly as compiled (an import map names
 * openapi-fetch): it verifies a real webhook delivery with Web Crypto, refuses a tampered one, and
 * calls the API (typed error, list walk, create with an Idempotency-Key). The page's site proxies
 * /api to the server, as a storefront served beside its API would.
 */
/** The module as the page sees it (loaded by the page's own script, not by the test's bundler). */
// biome-ignore lint/suspicious/noExplicitAny: the browser-side module is untyped here
type Sdk = any;

const ROOT = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

describe.skipIf(!hasChromium())('@emporium/sdk in Chromium', () => {
  let app: TestApp;
  let site: http.Server;
  let siteUrl: string;
  let apiKey: string;
  let browser: LaunchedBrowser;
  let receiver: WebhookReceiver;
  let worker: BackgroundWorker;
  const pageErrors: string[] = [];
  /** Idempotency-Key of each POST the page sent through the site. */
  const keysSent: (string | undefined)[] = [];

  beforeAll(async () => {
    const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
    await run(process.execPath, [tsc, '-p', path.join(ROOT, 'packages/sdk/tsconfig.json')], { cwd: ROOT });
    receiver = await startWebhookReceiver();
    app = await buildTestApp({ config: { allowPrivateUrls: true, webhookRetrySchedule: [0] } });
    await app.server.listen({ port: 0, host: '127.0.0.1' });
    const apiUrl = `http://127.0.0.1:${(app.server.server.address() as AddressInfo).port}`;
    apiKey = (await createStoreWithKey(app)).key;
    worker = startTestWorker(app);
    site = http.createServer(async (req, res) => {
      const url = req.url ?? '/';
      if (url === '/') {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(
          `<!doctype html><script type="importmap">{"imports":{"openapi-fetch":"/vendor/openapi-fetch.mjs"}}</script><title>sdk</title><script type="module">import * as sdk from '/sdk/index.js'; globalThis.sdk = sdk;</script>`,
        );
      } else if (url === '/vendor/openapi-fetch.mjs' || url.startsWith('/sdk/')) {
        const file =
          url === '/vendor/openapi-fetch.mjs'
            ? path.join(ROOT, 'node_modules/openapi-fetch/dist/index.mjs')
            : path.join(ROOT, 'packages/sdk/dist', path.basename(url));
        res.writeHead(200, { 'content-type': 'text/javascript' });
        res.end(fs.readFileSync(file));
      } else if (url.startsWith('/api/')) {
        if (req.method === 'POST') keysSent.push(req.headers['idempotency-key'] as string | undefined);
        const chunks: Buffer[] = [];
        for await (const chunk of req) chunks.push(chunk as Buffer);
        const headers = Object.fromEntries(
          Object.entries(req.headers).filter(
            ([name]) => !['host', 'connection', 'origin', 'referer'].includes(name),
          ),
        ) as Record<string, string>;
        const answer = await fetch(apiUrl + url, {
          method: req.method,
          headers,
          body: chunks.length ? Buffer.concat(chunks) : undefined,
        });
        res.writeHead(answer.status, Object.fromEntries(answer.headers));
        res.end(Buffer.from(await answer.arrayBuffer()));
      } else {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    browser = await launchBrowser();
    browser.page.on('pageerror', (error) => pageErrors.push(error.message));
    await browser.page.goto(`${siteUrl}/`);
    await browser.page.waitForFunction('globalThis.sdk !== undefined');
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => site?.close(resolve));
    await worker?.stop();
    await receiver?.close();
    await app?.close();
  });

  it('verifies a real delivery with Web Crypto and refuses a tampered one', async () => {
    const api = (method: string, url: string, body?: unknown) =>
      app.server.inject({
        method: method as 'POST',
        url,
        headers: { 'x-api-key': apiKey },
        payload: body as object,
      });
    const hook = (
      await api('POST', '/api/v1/webhooks', { url: `${receiver.url}/b`, events: ['order.created'] })
    ).json().data as { secret: string };
    const product = (
      await api('POST', '/api/v1/products', { name: 'Lamp', price: '30.00', inventory: 3 })
    ).json().data;
    await api('POST', '/api/v1/orders', {
      customer: { email: 'browser@example.com' },
      items: [{ product_id: product.id, quantity: 1 }],
    });
    await receiver.waitFor(() => receiver.received.some((r) => r.path === '/b'));
    const delivery = receiver.received.find((r) => r.path === '/b');

    const outcome = await browser.page.evaluate(
      async ({ body, headers, secret }) => {
        const sdk = (globalThis as unknown as { sdk: Sdk }).sdk;
        const ok = await sdk.verifyWebhook(body, headers, secret);
        const refused = await sdk.verifyWebhook(body.replace('browser@', 'mallory@'), headers, secret).then(
          () => 'accepted',
          (error: Error) => `${error.name}: ${error.message}`,
        );
        return { event: ok.event, scheme: ok.scheme, email: ok.payload.data.customerEmail, refused };
      },
      {
        body: delivery?.body ?? '',
        headers: delivery?.headers as Record<string, string>,
        secret: hook.secret,
      },
    );
    expect(outcome).toEqual({
      event: 'order.created',
      scheme: 'standard-webhooks',
      email: 'browser@example.com',
      refused: 'WebhookVerificationError: webhook-signature does not match',
    });
  });

  it('calls the API: a typed error, a create with an Idempotency-Key, a list walked to the end', async () => {
    const outcome = await browser.page.evaluate(async (key) => {
      const sdk = (globalThis as unknown as { sdk: Sdk }).sdk;
      const client = sdk.createEmporiumClient({
        baseUrl: (globalThis as unknown as { location: { origin: string } }).location.origin,
        apiKey: key,
      });
      const error = await client
        .get('/api/v1/orders/{id}', { params: { path: { id: '00000000-0000-7000-8000-000000000000' } } })
        .catch((e: unknown) => e);
      for (let i = 0; i < 5; i++)
        await client.post('/api/v1/products', { body: { name: `B${i}`, price: '1.00' } });
      const names: string[] = [];
      for await (const product of client.paginate('/api/v1/products', { params: { query: { limit: 2 } } }))
        names.push(product.name);
      return {
        isEmporiumError: error instanceof sdk.EmporiumError,
        status: error.status,
        code: error.code,
        names,
      };
    }, apiKey);
    expect(outcome).toMatchObject({ isEmporiumError: true, status: 404, code: 'not_found' });
    expect(outcome.names.slice(0, 5)).toEqual(['B4', 'B3', 'B2', 'B1', 'B0']);
    expect(outcome.names).toContain('Lamp');
    expect(keysSent).toHaveLength(5);
    expect(new Set(keysSent).size).toBe(5);
    for (const key of keysSent)
      expect(key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(pageErrors).toEqual([]);
  });
});
