import { type ChildProcess, execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BackgroundWorker } from '../../src/worker.js';
import { buildTestApp, startTestWorker, type TestApp } from '../helpers/app.js';
import { type Client, client, createProduct, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { createOrder } from '../helpers/order-factories.js';

/**
 * The programs of examples/ run as a user runs them: `node examples/<file>.mjs` in a child process,
 * importing the built `@emporium/sdk` package (built here first with tsc, as `npm run build:sdk`
 * does), against a real server on a port.
 */
const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');
const example = (name: string) => path.join(root, 'examples', name);

let app: TestApp;
let api: Client;
let env: NodeJS.ProcessEnv;
let worker: BackgroundWorker;
let tmp: string;

beforeAll(async () => {
  const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
  await run(process.execPath, [tsc, '-p', path.join(root, 'packages/sdk/tsconfig.json')], { cwd: root });
  app = await buildTestApp({ config: { ...UNLIMITED, allowPrivateUrls: true, webhookRetrySchedule: [0] } });
  await app.server.listen({ port: 0, host: '127.0.0.1' });
  const store = await createStoreWithKey(app);
  api = client(app, store.key);
  env = {
    PATH: process.env.PATH,
    EMPORIUM_URL: `http://127.0.0.1:${(app.server.server.address() as AddressInfo).port}`,
    EMPORIUM_API_KEY: store.key,
  };
  worker = startTestWorker(app);
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'emporium-examples-'));
}, 120_000);
afterAll(async () => {
  await worker.stop();
  await app.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const node = (file: string, args: string[] = [], extra: NodeJS.ProcessEnv = {}) =>
  run(process.execPath, [example(file), ...args], { cwd: root, env: { ...env, ...extra } });

describe('examples/', () => {
  it('sync-orders-to-csv writes every order to the CSV, newest first', async () => {
    const product = await createProduct(api, { name: 'Mug', price: '12.50', inventory: 1000 });
    for (let i = 0; i < 130; i++)
      await createOrder(api, {
        items: [{ product_id: product.id, quantity: 1 + (i % 3) }],
        mark_paid: i % 2 === 0,
      });
    const file = path.join(tmp, 'orders.csv');
    const { stdout } = await node('sync-orders-to-csv.mjs', [file]);
    expect(JSON.parse(stdout)).toEqual({ file, orders: 130 });
    const rows = fs.readFileSync(file, 'utf8').trimEnd().split('\r\n');
    expect(rows[0]).toBe(
      'order_number,created_at,status,payment_status,fulfillment_status,email,items,total',
    );
    expect(rows).toHaveLength(131);
    expect(rows.slice(1).map((row) => Number(row.split(',')[0]))).toEqual(
      Array.from({ length: 130 }, (_, i) => 1130 - i),
    );
    expect(rows[1]).toMatch(/^1130,\d{4}-.*,pending,unpaid,unfulfilled,buyer\..*@example\.com,1,12\.5$/);
  });

  it('update-stock sets each SKU to its counted level and reports the lines it cannot apply', async () => {
    const plain = await createProduct(api, { name: 'Plain', sku: 'PLAIN-1', price: '3.00', inventory: 10 });
    const sized = await createProduct(api, {
      name: 'Sized',
      price: '5.00',
      options: [{ name: 'Size', values: ['S', 'M'] }],
      variants: [
        { options: { Size: 'S' }, sku: 'SIZED-S', inventory: 4 },
        { options: { Size: 'M' }, sku: 'SIZED-M', inventory: 9 },
      ],
    });
    const file = path.join(tmp, 'stock.csv');
    fs.writeFileSync(file, 'sku,quantity\nPLAIN-1,25\nSIZED-S,0\nSIZED-M,9\nNOPE,3\nPLAIN-1,-1\n');
    const { stdout } = await node('update-stock.mjs', [file]);
    expect(JSON.parse(stdout)).toEqual([
      { sku: 'PLAIN-1', inventory: 25, adjustment: 15 },
      { sku: 'SIZED-S', inventory: 0, adjustment: -4 },
      { sku: 'SIZED-M', inventory: 9, adjustment: 0 },
      { sku: 'NOPE', error: 'unknown SKU' },
      { sku: 'PLAIN-1', error: 'bad line: PLAIN-1,-1' },
    ]);
    expect((await api.get(`/api/v1/inventory/${plain.id}`)).json().data.inventory).toBe(25);
    const variants = (await api.get(`/api/v1/products/${sized.id}`)).json().data.variants;
    expect(variants.map((v: { inventory: number }) => v.inventory)).toEqual([0, 9]);
  });

  it('webhook-receiver prints verified deliveries and refuses a forged one', async () => {
    // The receiver needs the webhook's secret to start, and the webhook its URL: created with a closed
    // port (discard, 9), then pointed at the receiver once it listens.
    const created = await api.post('/api/v1/webhooks', {
      url: 'http://127.0.0.1:9/not-listening-yet',
      events: ['order.created'],
    });
    const hook = created.json().data as { id: string; secret: string };
    const child = spawn(process.execPath, [example('webhook-receiver.mjs')], {
      cwd: root,
      env: { ...env, PORT: '0', EMPORIUM_WEBHOOK_SECRET: hook.secret },
    });
    try {
      const lines = outputLines(child);
      const listening = JSON.parse(await lines.next()).listening as string;
      expect(
        (await api.patch(`/api/v1/webhooks/${hook.id}`, { url: `${listening}/emporium` })).statusCode,
      ).toBe(200);
      const product = await createProduct(api, { inventory: 5 });
      const order = await createOrder(api, { items: [{ product_id: product.id, quantity: 1 }] });
      const printed = JSON.parse(await lines.next());
      expect(printed).toMatchObject({ event: 'order.created', test: false, data: { orderId: order.id } });

      const forged = await fetch(`${listening}/emporium`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-webhook-id': 'x',
          'x-webhook-signature': `sha256=${'0'.repeat(64)}`,
        },
        body: JSON.stringify({ event: 'order.paid', timestamp: new Date().toISOString(), data: {} }),
      });
      expect(forged.status).toBe(400);
      expect(await forged.text()).toBe('X-Webhook-Signature does not match');
    } finally {
      child.kill('SIGTERM');
    }
  });
});

/** The child's stdout, a line at a time. */
function outputLines(child: ChildProcess) {
  const queue: string[] = [];
  const waiting: ((line: string) => void)[] = [];
  let errors = '';
  child.stderr?.on('data', (chunk) => {
    errors += String(chunk);
  });
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
    const next = waiting.shift();
    if (next) next(line);
    else queue.push(line);
  });
  return {
    next(timeoutMs = 15_000): Promise<string> {
      const line = queue.shift();
      if (line !== undefined) return Promise.resolve(line);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no output from the example; stderr: ${errors}`)),
          timeoutMs,
        );
        waiting.push((text) => {
          clearTimeout(timer);
          resolve(text);
        });
      });
    },
  };
}
