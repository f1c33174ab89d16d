import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import sharp from 'sharp';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { MemoryRateLimitStore } from '../../src/platform/http/rate-limit.js';
import { GLIBC_MALLOC_TEXT, startApiProcess } from '../lib/api-process.js';
import { cleanUp, cleanUpStack } from '../lib/cleanup.js';
import { freshBenchDatabase } from '../lib/database.js';
import { envNumber } from '../lib/rounds.js';
import { metric, type Scenario } from '../lib/scenario.js';

/** 100 megapixels: the pipeline's input limit (MAX_INPUT_PIXELS). */
const SIDE = 10_000;
const SETTLE_SECONDS = 60;
const MiB = 1024 * 1024;

/** A 10,000×10,000 JPEG (under the 20 MiB download limit): smooth waves, upscaled from a small tile. */
async function hundredMegapixelJpeg(): Promise<Buffer> {
  const tile = 500;
  const pixels = Buffer.alloc(tile * tile * 3);
  for (let y = 0; y < tile; y++) {
    for (let x = 0; x < tile; x++) {
      const i = (y * tile + x) * 3;
      pixels[i] = 128 + Math.round(100 * Math.sin(x / 23));
      pixels[i + 1] = 128 + Math.round(100 * Math.cos(y / 31));
      pixels[i + 2] = 128 + Math.round(100 * Math.sin((x + y) / 41));
    }
  }
  return sharp(pixels, { raw: { width: tile, height: tile, channels: 3 } })
    .resize(SIDE, SIDE, { kernel: 'cubic' })
    .jpeg({ quality: 80 })
    .toBuffer();
}

/** Serves the same JPEG under any path, so every URL of a product is a distinct download. */
async function startImageHost(bytes: Buffer) {
  const server = http.createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': bytes.length }).end(bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Resident set size of a process, from /proc (Linux). */
function rssOf(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN);
  return kb * 1024;
}

/** Samples a process's RSS every 100 ms until stopped; returns the highest seen. */
function samplePeak(pid: number) {
  let peak = rssOf(pid);
  const timer = setInterval(() => {
    peak = Math.max(peak, rssOf(pid));
  }, 100);
  return () => {
    clearInterval(timer);
    return Math.max(peak, rssOf(pid));
  };
}

/**
 * The burst of the security review: parallel product creations, each re-hosting 50 images of 100
 * megapixels, against a real `emporium serve` (compiled, as `npm start` runs it). Its RSS before,
 * at the peak, and 60 s after, with the idle server before the burst as the baseline.
 */
export const scenario: Scenario = {
  name: 'image-burst',
  description:
    'memory of a server re-hosting 4 × 50 images of 100 megapixels at once (RSS peak and 60 s after)',

  async run(log) {
    const products = Math.round(envNumber('BENCH_BURST_PRODUCTS', 4));
    const imagesPerProduct = Math.round(envNumber('BENCH_BURST_IMAGES', 50));
    const notes: string[] = [];
    const { release, onExit } = cleanUpStack();
    try {
      const jpeg = await hundredMegapixelJpeg();
      log(`generated a ${SIDE}×${SIDE} JPEG of ${(jpeg.length / MiB).toFixed(1)} MiB`);
      const host = await startImageHost(jpeg);
      onExit('image host', () => host.close());

      const database = await freshBenchDatabase(log, notes, onExit);
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'emporium-bench-burst-'));
      onExit('data dir', async () => fs.rmSync(dataDir, { recursive: true, force: true }));
      const apiKey = await prepareStore(database.url, dataDir);

      const server = await startApiProcess({
        name: 'api',
        databaseUrl: database.url,
        appSecret: randomBytes(24).toString('hex'),
        dataDir,
        launch: 'compiled',
        env: { ALLOW_PRIVATE_URLS: 'true', LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '100000' },
      });
      onExit('api process', () => server.stop());

      const create = (n: number, images: number) =>
        fetch(`${server.url}/api/v1/products`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
          body: JSON.stringify({
            name: `Burst ${n}`,
            price: '10.00',
            download_images: true,
            images: Array.from({ length: images }, (_, i) => ({ url: `${host.base}/p${n}/i${i}.jpg` })),
          }),
        }).then(async (response) => {
          if (response.status !== 201)
            throw new Error(`product ${n}: ${response.status} ${await response.text()}`);
        });

      // One image first, so sharp and libvips are loaded and the baseline is a warm, idle server.
      await create(0, 1);
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const before = rssOf(server.pid);
      log(`idle RSS before the burst: ${(before / MiB).toFixed(0)} MiB`);

      const peakOf = samplePeak(server.pid);
      const started = performance.now();
      await Promise.all(Array.from({ length: products }, (_, i) => create(i + 1, imagesPerProduct)));
      const seconds = (performance.now() - started) / 1000;
      const peak = peakOf();
      log(
        `burst done in ${seconds.toFixed(1)} s; peak RSS ${(peak / MiB).toFixed(0)} MiB; settling ${SETTLE_SECONDS} s…`,
      );
      await new Promise((resolve) => setTimeout(resolve, SETTLE_SECONDS * 1000));
      const after = rssOf(server.pid);
      log(`RSS ${SETTLE_SECONDS} s after: ${(after / MiB).toFixed(0)} MiB`);

      notes.push(
        `burst: ${products} parallel POST /api/v1/products, each with ${imagesPerProduct} distinct image URLs of a ${SIDE}×${SIDE} JPEG (${(jpeg.length / MiB).toFixed(1)} MiB) on a loopback host; ${products * imagesPerProduct} images converted in ${seconds.toFixed(1)} s`,
        `server: emporium serve --no-worker compiled (dist/), with ${GLIBC_MALLOC_TEXT} as npm start sets it; RSS from /proc every 100 ms`,
        `baseline: the same server's RSS when idle before the burst (after one warm-up image)`,
      );
      const baselineLabel = 'idle server before the burst';
      return {
        notes,
        metrics: [
          metric({
            name: 'peak RSS during the burst',
            unit: 'MB',
            ours: peak / MiB,
            baseline: before / MiB,
            baselineLabel,
            target: { on: 'value', op: '<', value: 512 },
          }),
          metric({
            name: `RSS ${SETTLE_SECONDS} s after the burst`,
            unit: 'MB',
            ours: after / MiB,
            baseline: before / MiB,
            baselineLabel,
          }),
          metric({
            name: `RSS still held ${SETTLE_SECONDS} s after (after − before)`,
            unit: 'MB',
            ours: (after - before) / MiB,
            target: { on: 'value', op: '<', value: 100 },
          }),
        ],
      };
    } finally {
      await cleanUp(log, release);
    }
  },
};

/** Migrates the fresh database and makes a store with a products:write key; returns the key. */
async function prepareStore(url: string, dataDir: string): Promise<string> {
  const handle = openDatabase(url, { max: 2 });
  try {
    await migrateToLatest(handle.db);
    const config = loadConfig({ LOG_LEVEL: 'silent', DATABASE_URL: url, DATA_DIR: dataDir, PORT: '0' });
    const app = await buildApp({
      config,
      db: handle.db,
      logger: pino({ level: 'silent' }),
      rateLimitStore: new MemoryRateLimitStore(),
    });
    try {
      const store = await app.services.stores.createStore({ slug: 'bench-burst', name: 'Bench burst' });
      const created = await app.services.stores.createApiKey(store.id, { scopes: ['products:write'] });
      return created.key;
    } finally {
      await app.server.close();
    }
  } finally {
    await handle.close();
  }
}
