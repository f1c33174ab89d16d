import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createClient } from '@hey-api/openapi-ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

/**
 * The OpenAPI document as code we did not write reads it: a third-party generator
 * (@hey-api/openapi-ts, no network, no Java) turns the document a running server serves into a
 * client, `tsc --strict` compiles it with a merchant's integration script
 * (generated-client/merchant-integration.ts), and the script runs against that server: cursor
 * pages, products with Idempotency-Key, an order paid and refunded, a malformed filter's 400, a
 * webhook and its test delivery.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

let app: TestApp;
let receiver: WebhookReceiver;
let dir: string;
let baseUrl: string;

/** A port free now: the server's PUBLIC_URL must name it before the server is built. */
async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  app = await buildTestApp({ config: { ...UNLIMITED, allowPrivateUrls: true, publicUrl: baseUrl } });
  await app.server.listen({ port, host: '127.0.0.1' });
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'emporium-generated-client-'));
});
afterAll(async () => {
  await app?.close();
  await receiver?.close();
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    noUncheckedIndexedAccess: true,
    skipLibCheck: false,
    lib: ['ES2022', 'DOM', 'DOM.Iterable'],
    types: [],
    outDir: 'dist',
    rootDir: '.',
  },
  include: ['*.ts', 'client/**/*.ts'],
};

describe('a client generated from /openapi.json by a third-party generator', () => {
  it('compiles under tsc --strict and runs a merchant integration against the server', async () => {
    const { key } = await createStoreWithKey(app);
    const document = await fetch(`${baseUrl}/openapi.json`).then((res) => res.text());
    expect(JSON.parse(document).servers).toEqual([expect.objectContaining({ url: baseUrl })]);
    await fs.writeFile(path.join(dir, 'openapi.json'), document);
    await createClient({
      input: path.join(dir, 'openapi.json'),
      output: path.join(dir, 'client'),
      logs: { level: 'silent' },
    });
    await fs.copyFile(
      path.join(ROOT, 'test/process/generated-client/merchant-integration.ts'),
      path.join(dir, 'merchant-integration.ts'),
    );
    await fs.writeFile(path.join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG));
    await fs.writeFile(path.join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));

    const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
    const compiled = await run(process.execPath, [tsc, '-p', dir], { cwd: dir }).catch(
      (error: { stdout?: string }) => ({ stdout: `tsc failed:\n${error.stdout}` }),
    );
    expect(compiled.stdout).toBe('');

    const script = path.join(dir, 'dist/merchant-integration.js');
    const { stdout } = await run(process.execPath, [script, key, receiver.url], { cwd: dir }).catch(
      (error: { stdout?: string; stderr?: string }) => {
        throw new Error(`the integration failed: ${error.stderr}${error.stdout}`);
      },
    );
    const summary = JSON.parse(stdout) as { products: string[]; orderId: string; pages: number };

    // What the script did is what the database holds.
    expect(summary.products).toHaveLength(5);
    const order = await app.server.inject({
      method: 'GET',
      url: `/api/v1/orders/${summary.orderId}`,
      headers: { 'x-api-key': key },
    });
    expect(order.json().data).toMatchObject({ payment_status: 'partially_refunded', amount_refunded: 5 });
    const delivery = receiver.received.find((request) => request.path === '/generated');
    expect(JSON.parse(delivery?.body ?? '{}')).toMatchObject({ event: 'order.refunded' });
  });
});
