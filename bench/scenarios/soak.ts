import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { MemoryRateLimitStore } from '../../src/platform/http/rate-limit.js';
import {
  type ApiProcess,
  GLIBC_MALLOC_TEXT,
  NPM_START_NODE_FLAGS,
  startApiProcess,
} from '../lib/api-process.js';
import { insertCatalogue } from '../lib/catalogue.js';
import { cleanUp, cleanUpStack } from '../lib/cleanup.js';
import { cpuSecondsOf } from '../lib/cpu-time.js';
import { benchServerFor, createFreshDatabase } from '../lib/database.js';
import { mb } from '../lib/format.js';
import {
  type Mapping,
  mappingsOf,
  memoryOf,
  postmasterPid,
  processTree,
  residentByKind,
  v8PagesMappedKb,
} from '../lib/proc.js';
import { envNumber } from '../lib/rounds.js';
import { metric, type Scenario } from '../lib/scenario.js';
import { startSoakReceiver } from '../lib/soak-receiver.js';
import { failuresOf, type Kind, percentile, startTraffic } from '../lib/soak-traffic.js';
import { leastSquares } from '../lib/trend.js';

/**
 * Soak: one `npm start` process (dist/main.js: API and background worker) under a steady, moderate
 * mix of storefront, shop, checkout and merchant traffic for BENCH_SOAK_SECONDS (default 600), with a
 * webhook on a local receiver for every event. Its memory is sampled every SAMPLE_MS; after the
 * warm-up a least-squares line through RSS tells whether memory keeps growing.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SLUG = 'soak';
const PRODUCTS = 2_000;
/** Products the checkouts buy: tracked ones restocked to CHECKOUT_STOCK, and the untracked among them. */
const CHECKOUT_PRODUCTS = 50;
const CHECKOUT_STOCK = 100_000_000;
const SHOPPERS = 500;
const SAMPLE_MS = 10_000;
/** The share of the run discarded as warm-up before the line is fitted. */
const WARMUP_SHARE = 0.2;
/** "No growth trend": the fitted slope projects less than this over the measured period (% of RSS at warm-up end). */
const GROWTH_TARGET_PERCENT = 5;
/** A leak raises the heap's floor: its lowest reading in the last third against the first, in %. */
const FLOOR_TARGET_PERCENT = 20;
/** The order ids remembered for "order by id" reads (the newest ones). */
const RECENT_ORDERS = 500;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Seeded {
  apiKey: string;
  productSlugs: string[];
  checkoutIds: string[];
}

/** Migrates and fills the store in this process (closed before the server starts). */
async function seed(url: string, dataDir: string): Promise<Seeded> {
  const handle = openDatabase(url, { max: 4 });
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
      const store = await app.services.stores.createStore({ slug: SLUG, name: 'Soak Store' });
      await insertCatalogue(handle.db, store.id, PRODUCTS, (key) => app.mediaStorage.publicUrl(key));
      const products = await handle.db
        .selectFrom('products')
        .select(['id', 'slug'])
        .where('store_id', '=', store.id)
        .orderBy('created_at')
        .execute();
      const checkoutIds = products.slice(0, CHECKOUT_PRODUCTS).map((p) => p.id);
      // Enough stock for any soak: tracked products keep taking stock (and the stock's row locks).
      await handle.db
        .updateTable('products')
        .set({ inventory: CHECKOUT_STOCK })
        .where('store_id', '=', store.id)
        .where('id', 'in', checkoutIds)
        .where('track_inventory', '=', true)
        .execute();
      await handle.pool.query('VACUUM (ANALYZE) products, product_media');
      const key = await app.services.stores.createApiKey(store.id, {
        name: 'soak',
        scopes: ['orders:read', 'products:read', 'webhooks:write'],
      });
      return { apiKey: key.key, productSlugs: products.map((p) => p.slug), checkoutIds };
    } finally {
      await app.server.close();
    }
  } finally {
    await handle.close();
  }
}

/** The five mappings whose resident memory grew most between two readings (new mappings count from 0). */
function growthOf(before: Mapping[], after: Mapping[]): string {
  const was = new Map(before.map((m) => [m.start, m.rssKb]));
  return after
    .map((m) => ({ m, grew: m.rssKb - (was.get(m.start) ?? 0) }))
    .sort((a, b) => b.grew - a.grew)
    .slice(0, 5)
    .map(
      ({ m, grew }) =>
        `${m.start} ${mb(m.sizeKb).toFixed(0)} MB ${m.perms} ${m.name || 'anon'}: ${mb(m.rssKb - grew).toFixed(1)} → ${mb(m.rssKb).toFixed(1)}`,
    )
    .join('; ');
}

interface Sample {
  /** Seconds since the traffic began. */
  t: number;
  rssMb: number;
  pssMb: number;
  pgRssMb?: number;
  pgPssMb?: number;
  /** V8's heap in use and the memory held outside it (buffers), from the process's /metrics. */
  heapMb?: number;
  /** V8's heap as committed (what of it can be resident): used + free space it keeps. */
  heapTotalMb?: number;
  externalMb?: number;
  /** Major (mark-compact) collections so far. */
  majorGcs?: number;
  /** V8's code space, resident (JIT code). */
  codeMb?: number;
  /** V8's pages as mapped read-write (committed + pooled): the ceiling of their resident part. */
  v8MappedMb: number;
  /** Resident MB by kind of mapping (residentByKind). */
  kinds: Record<string, number>;
  mappings: Mapping[];
}

/** prom-client's default gauges of the process: heap in use and external memory, in MB. */
async function heapOf(
  url: string,
): Promise<Pick<Sample, 'heapMb' | 'heapTotalMb' | 'externalMb' | 'majorGcs' | 'codeMb'>> {
  try {
    const text = await (await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(5_000) })).text();
    const gauge = (name: string) => {
      const match = text.match(new RegExp(`^${name} (\\S+)`, 'm'));
      return match ? Number(match[1]) / 2 ** 20 : undefined;
    };
    return {
      heapMb: gauge('nodejs_heap_size_used_bytes'),
      heapTotalMb: gauge('nodejs_heap_size_total_bytes'),
      externalMb: gauge('nodejs_external_memory_bytes'),
      majorGcs: Number(text.match(/^nodejs_gc_duration_seconds_count\{kind="major"\} (\S+)/m)?.[1] ?? 0),
      codeMb: gauge('nodejs_heap_space_size_total_bytes\\{space="code"\\}'),
    };
  } catch {
    return {};
  }
}

export const scenario: Scenario = {
  name: 'soak',
  description:
    'one `npm start` process under steady mixed traffic (storefront, shop pages, checkouts, merchant reads, webhooks) for BENCH_SOAK_SECONDS (600): RSS trend, errors, every webhook delivered',

  async run(log) {
    const seconds = envNumber('BENCH_SOAK_SECONDS', 600);
    // At least four samples after the warm-up, or the line says nothing.
    if (seconds * (1 - WARMUP_SHARE) < (3 * SAMPLE_MS) / 1000)
      throw new Error(`BENCH_SOAK_SECONDS=${seconds} is too short to fit a line: use 60 or more`);
    const main = path.join(root, 'dist/main.js');
    if (!fs.existsSync(main)) throw new Error(`${main} is missing: run \`npm run build\``);
    const notes: string[] = [];
    const { release, onExit } = cleanUpStack();
    try {
      const server = await benchServerFor(log, notes, onExit, ', a fresh database dropped at the end');
      const fresh = await createFreshDatabase(server.adminUrl);
      onExit('database', () => fresh.drop());
      const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'emporium-bench-soak-'));
      onExit('temporary DATA_DIRs', async () => fs.rmSync(tmp, { recursive: true, force: true }));
      fs.mkdirSync(path.join(tmp, 'seed'));
      fs.mkdirSync(path.join(tmp, 'api'));

      log(`seeding ${PRODUCTS} products…`);
      const seeded = await seed(fresh.url, path.join(tmp, 'seed'));

      const receiver = await startSoakReceiver();
      onExit('webhook receiver', () => receiver.close());
      const api: ApiProcess = await startApiProcess({
        name: 'api',
        databaseUrl: fresh.url,
        appSecret: randomBytes(24).toString('hex'),
        dataDir: path.join(tmp, 'api'),
        launch: 'npm-start',
        env: {
          NODE_ENV: 'production',
          // The receiver listens on 127.0.0.1, which the SSRF guard refuses unless told otherwise.
          ALLOW_PRIVATE_URLS: 'true',
          // Every request comes from 127.0.0.1: the per-client limit would answer 429 to the bench.
          RATE_LIMIT_PER_MINUTE: '1000000000',
          LOG_LEVEL: 'warn',
          // For experiments on V8's or glibc's settings (e.g. --max-semi-space-size); unset in the full run.
          ...(process.env.BENCH_SOAK_NODE_OPTIONS
            ? { NODE_OPTIONS: process.env.BENCH_SOAK_NODE_OPTIONS }
            : {}),
        },
      });
      onExit('api process', async () => {
        const code = await api.stop();
        if (code !== 0) log(`api exited with ${code}:\n${api.output().slice(-2000)}`);
      });
      log(`started \`npm start\` (pid ${api.pid}, ${api.url})`);

      const bench = openDatabase(fresh.url, { max: 2 });
      onExit('bench pool', () => bench.close());
      const scalar = async (text: string, params: unknown[]) =>
        Number((await bench.pool.query<{ n: string }>(text, params)).rows[0]?.n ?? 0);
      const storeId = String(
        (await bench.pool.query<{ id: string }>('SELECT id FROM stores WHERE slug = $1', [SLUG])).rows[0]?.id,
      );
      const merchant = { 'x-api-key': seeded.apiKey };

      // Every event recorded after this point reaches the webhook: nothing of this store is in flight.
      const seqBefore = await scalar('SELECT COALESCE(max(seq), 0) AS n FROM events WHERE store_id = $1', [
        storeId,
      ]);
      const created = await fetch(`${api.url}/api/v1/webhooks`, {
        method: 'POST',
        headers: { ...merchant, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `${receiver.url}/soak`, events: ['*'] }),
      });
      const webhook = (await created.json()) as { data?: { id: string; secret: string } };
      if (created.status !== 201 || !webhook.data)
        throw new Error(`registering the webhook: ${created.status} ${JSON.stringify(webhook)}`);
      receiver.setSecret(webhook.data.secret);
      const webhookId = webhook.data.id;

      const checkoutBody = (n: number) =>
        JSON.stringify({
          email: `shopper.${n % SHOPPERS}@soak.example`,
          firstName: 'Soak',
          lastName: `Shopper ${n % SHOPPERS}`,
          items: [{ productId: seeded.checkoutIds[n % seeded.checkoutIds.length], quantity: 1 }],
          shippingAddress: { line1: '1 Main St', city: 'Springfield', postalCode: '12345', country: 'US' },
          paymentMethod: 'test_card',
          cardToken: 'tok_visa',
        });
      const recentOrders: string[] = [];
      const remember = (body: string) => {
        recentOrders.push((JSON.parse(body) as { data: { id: string } }).data.id);
        if (recentOrders.length > RECENT_ORDERS) recentOrders.shift();
      };
      // One checkout before the load: its answer is checked, and "order by id" has an order to read.
      const first = await fetch(`${api.url}/api/storefront/${SLUG}/checkout`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: checkoutBody(0),
      });
      const firstBody = await first.text();
      const firstOrder = JSON.parse(firstBody) as { data?: { paymentStatus?: string } };
      if (first.status !== 201 || firstOrder.data?.paymentStatus !== 'paid')
        throw new Error(`first checkout: ${first.status} ${firstBody.slice(0, 300)}`);
      remember(firstBody);

      const slugs = seeded.productSlugs;
      const sorts = ['newest', 'price_asc', 'price_desc', 'name'];
      const get = (p: string, headers?: Record<string, string>) => ({
        method: 'GET' as const,
        path: p,
        headers,
      });
      const kinds: Kind[] = [
        {
          name: 'storefront list JSON',
          rate: 25,
          concurrency: 6,
          expectStatus: 200,
          next: (n) =>
            get(
              `/api/storefront/${SLUG}/products?limit=24&sort=${sorts[n % 4]}&page=${(Math.floor(n / 4) % 20) + 1}`,
            ),
        },
        {
          name: 'storefront product JSON',
          rate: 25,
          concurrency: 6,
          expectStatus: 200,
          next: (n) => get(`/api/storefront/${SLUG}/products/${slugs[(n * 7) % slugs.length]}`),
        },
        {
          name: 'shop list pages (HTML)',
          rate: 10,
          concurrency: 4,
          expectStatus: 200,
          next: (n) => get(n % 2 === 0 ? `/shop/${SLUG}/` : `/shop/${SLUG}/products?page=${(n % 40) + 1}`),
        },
        {
          name: 'shop product pages (HTML)',
          rate: 15,
          concurrency: 4,
          expectStatus: 200,
          // All the products in turn: more pages than the page cache holds, so the cache keeps evicting.
          next: (n) => get(`/shop/${SLUG}/products/${slugs[(n * 13) % slugs.length]}`),
        },
        {
          name: 'checkouts (test_card)',
          rate: 15,
          concurrency: 4,
          expectStatus: 201,
          next: (n) => ({
            method: 'POST',
            path: `/api/storefront/${SLUG}/checkout`,
            body: checkoutBody(n + 1),
          }),
          onBody: remember,
        },
        {
          name: 'merchant orders list',
          rate: 5,
          concurrency: 2,
          expectStatus: 200,
          next: () => get('/api/v1/orders?limit=50', merchant),
        },
        {
          name: 'merchant products list',
          rate: 5,
          concurrency: 2,
          expectStatus: 200,
          next: (n) => get(`/api/v1/products?limit=50${n % 2 ? '&sort=newest' : ''}`, merchant),
        },
        {
          name: 'merchant order by id',
          rate: 10,
          concurrency: 2,
          expectStatus: 200,
          next: (n) => get(`/api/v1/orders/${recentOrders[n % recentOrders.length]}`, merchant),
        },
      ];

      const pgdata = server.pgdata;
      const samples: Sample[] = [];
      const t0 = performance.now();
      const take = async () => {
        const heap = await heapOf(api.url);
        const own = memoryOf([api.pid]);
        const mappings = mappingsOf(api.pid);
        const sample: Sample = {
          t: (performance.now() - t0) / 1000,
          rssMb: mb(own.rssKb),
          pssMb: mb(own.pssKb),
          ...heap,
          v8MappedMb: mb(v8PagesMappedKb(mappings)),
          kinds: Object.fromEntries(Object.entries(residentByKind(mappings)).map(([k, kb]) => [k, mb(kb)])),
          mappings,
        };
        const postmaster = pgdata ? postmasterPid(pgdata) : undefined;
        if (postmaster) {
          const pg = memoryOf(processTree(postmaster));
          sample.pgRssMb = mb(pg.rssKb);
          sample.pgPssMb = mb(pg.pssKb);
        }
        samples.push(sample);
        return sample;
      };

      // BENCH_SOAK_KINDS (comma-separated name prefixes) runs only those kinds, to tell which one grows memory.
      const only = process.env.BENCH_SOAK_KINDS?.split(',').map((k) => k.trim());
      const chosen = only ? kinds.filter((k) => only.some((prefix) => k.name.startsWith(prefix))) : kinds;
      if (!chosen.length) throw new Error(`BENCH_SOAK_KINDS=${process.env.BENCH_SOAK_KINDS} matches no kind`);
      const loadBefore = os.loadavg()[0] ?? 0;
      const cpuBefore = cpuSecondsOf(api.pid);
      log(`soak: ${seconds} s of mixed traffic (${chosen.map((k) => `${k.name} ${k.rate}/s`).join(', ')})…`);
      const traffic = startTraffic(api.url, chosen);
      await take();
      const loadAverages: number[] = [];
      while ((performance.now() - t0) / 1000 < seconds - 0.5) {
        await sleep(Math.min(SAMPLE_MS, seconds * 1000 - (performance.now() - t0)));
        const s = await take();
        loadAverages.push(os.loadavg()[0] ?? 0);
        const sent = traffic.tallies.reduce((a, t) => a + t.sent, 0);
        const failed = traffic.tallies.reduce((a, t) => a + failuresOf(t), 0);
        log(
          `  ${s.t.toFixed(0)} s: RSS ${s.rssMb.toFixed(1)} MB, PSS ${s.pssMb.toFixed(1)} MB, heap ${s.heapMb?.toFixed(1)} of ${s.heapTotalMb?.toFixed(1)} MB, external ${s.externalMb?.toFixed(1)} MB, code ${s.codeMb?.toFixed(1)} MB, V8 pages mapped ${s.v8MappedMb.toFixed(1)} MB` +
            `; by mapping ${Object.entries(s.kinds)
              .map(([k, v]) => `${k} ${v.toFixed(1)}`)
              .join(', ')}` +
            `${s.pgRssMb === undefined ? '' : `, postgres RSS ${s.pgRssMb.toFixed(0)} MB`}; ${sent} requests, ${failed} failed; load ${loadAverages.at(-1)?.toFixed(2)}`,
        );
      }
      await traffic.stop();
      const elapsed = (performance.now() - t0) / 1000;
      const cpuShare = (cpuSecondsOf(api.pid) - cpuBefore) / elapsed;

      // Everything recorded must be delivered: wait for the outbox and the deliveries to drain.
      const expectedOf = () =>
        scalar('SELECT count(*) AS n FROM events WHERE store_id = $1 AND seq > $2', [storeId, seqBefore]);
      const drainStarted = Date.now();
      let expected = await expectedOf();
      for (;;) {
        const undispatched = await scalar(
          'SELECT count(*) AS n FROM events WHERE store_id = $1 AND dispatched_at IS NULL',
          [storeId],
        );
        const pending = await scalar(
          "SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id = $1 AND status = 'pending'",
          [webhookId],
        );
        expected = await expectedOf();
        if (undispatched === 0 && pending === 0 && receiver.distinct >= expected) break;
        if (Date.now() - drainStarted > 180_000) {
          log(
            `drain timed out: ${undispatched} undispatched, ${pending} pending, ${receiver.distinct}/${expected}`,
          );
          break;
        }
        await sleep(500);
      }
      const drainMs = Date.now() - drainStarted;
      const deliveries = (
        await bench.pool.query<{ status: string; n: string }>(
          'SELECT status, count(*) AS n FROM webhook_deliveries WHERE webhook_id = $1 GROUP BY status',
          [webhookId],
        )
      ).rows.reduce<Record<string, number>>((acc, r) => Object.assign(acc, { [r.status]: Number(r.n) }), {});
      const orders = await scalar('SELECT count(*) AS n FROM orders WHERE store_id = $1', [storeId]);
      const succeeded = deliveries.succeeded ?? 0;
      const failedDeliveries = deliveries.failed ?? 0;

      // The line: samples after the warm-up, RSS in MB against minutes.
      const warmupEnd = seconds * WARMUP_SHARE;
      const measured = samples.filter((s) => s.t >= warmupEnd - 0.5);
      const fitOf = (pick: (s: Sample) => number | undefined) => {
        const points = measured.flatMap((s) => {
          const y = pick(s);
          return y === undefined ? [] : [{ x: s.t / 60, y }];
        });
        return points.length >= 2 ? leastSquares(points) : undefined;
      };
      const rssFit = fitOf((s) => s.rssMb) as { slope: number };
      const pssFit = fitOf((s) => s.pssMb) as { slope: number };
      const pgFit = fitOf((s) => s.pgRssMb);
      const heapFit = fitOf((s) => s.heapMb);
      const measuredMinutes = ((measured.at(-1)?.t ?? 0) - (measured[0]?.t ?? 0)) / 60;
      const atWarmupEnd = measured[0] as Sample;
      const atEnd = samples.at(-1) as Sample;
      const maxRss = Math.max(...samples.map((s) => s.rssMb));
      const projectedMb = rssFit.slope * measuredMinutes;
      const projectedPercent = (projectedMb / atWarmupEnd.rssMb) * 100;
      // Beside the criterion, not instead of it: RSS plus the part of V8's mapped pages not resident
      // yet. V8 touches its committed and pooled pages progressively and never gives them back under
      // load, so RSS climbs towards this ceiling for minutes; a leak raises the ceiling itself.
      const ceilingOf = (s: Sample) => s.rssMb + s.v8MappedMb - (s.kinds['anon 256 KB-aligned'] ?? 0);
      const ceilingFit = fitOf(ceilingOf) as { slope: number };
      const ceilingPercent = ((ceilingFit.slope * measuredMinutes) / ceilingOf(atWarmupEnd)) * 100;
      // A leak raises the heap's floor (what is left after a collection): its lowest reading per third.
      const floors = [0, 1, 2].map((i) => {
        const span = (seconds - warmupEnd) / 3;
        const heaps = measured
          .filter((s) => s.t >= warmupEnd + span * i - 0.5 && s.t < warmupEnd + span * (i + 1) + 0.5)
          .flatMap((s) => s.heapMb ?? []);
        return heaps.length ? Math.min(...heaps) : undefined;
      });
      const [firstFloor, , lastFloor] = floors;
      const floorGrowth =
        firstFloor !== undefined && lastFloor !== undefined
          ? ((lastFloor - firstFloor) / firstFloor) * 100
          : undefined;
      const majorGcs = (atEnd.majorGcs ?? 0) - (atWarmupEnd.majorGcs ?? 0);

      const tallies = traffic.tallies;
      // The server logs at warn: every line is a warning or an error worth reading next to the figures.
      const serverLines = api
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'));
      const totalFailures = tallies.reduce((a, t) => a + failuresOf(t), 0) + receiver.counts.badSignatures;
      const checkouts = tallies.find((t) => t.name.startsWith('checkouts'));
      const series = (pick: (s: Sample) => number | undefined) =>
        samples.map((s) => pick(s)?.toFixed(1) ?? '–').join(' ');
      const load = loadAverages.length
        ? `${Math.min(...loadAverages).toFixed(2)}–${Math.max(...loadAverages).toFixed(2)}`
        : 'n/a';

      notes.push(
        `server: \`npm start\` as it runs in production (node ${NPM_START_NODE_FLAGS.join(' ')} dist/main.js with ${GLIBC_MALLOC_TEXT}, NODE_ENV=production: API and background worker in one process) on DATABASE_URL = the fresh database; ALLOW_PRIVATE_URLS=true (the receiver is on 127.0.0.1), RATE_LIMIT_PER_MINUTE 1e9 (every request comes from 127.0.0.1), LOG_LEVEL warn`,
        `store: ${PRODUCTS} catalogue products (bench/lib/catalogue.ts) and 1 API key; checkouts buy 1 unit of one of ${CHECKOUT_PRODUCTS} products (tracked ones restocked to ${CHECKOUT_STOCK.toLocaleString('en-US')}, every tenth untracked) by one of ${SHOPPERS} shoppers, paid with test_card`,
        `traffic: paced loops in the bench process (undici, keep-alive), a fixed rate and number of loops per kind, no catch-up burst when behind: ${kinds.map((k) => `${k.name} ${k.rate}/s × ${k.concurrency}`).join('; ')}`,
        `run: ${elapsed.toFixed(0)} s; API process CPU ${(cpuShare * 100).toFixed(0)}% of one core on average; load average (1 min) ${loadBefore.toFixed(2)} before, ${load} during, on ${os.cpus().length} CPUs (other sessions share the machine)`,
        ...tallies.map((t) => {
          const bad = failuresOf(t);
          const detail = bad ? ` (${JSON.stringify({ ...t.statuses, ...t.errors })})` : '';
          return `${t.name}: ${t.sent} requests, ${(t.ok / elapsed).toFixed(1)}/s answered as expected, ${bad} failed${detail}; p50 ${percentile(t.latenciesMs, 50).toFixed(1)} ms, p99 ${percentile(t.latenciesMs, 99).toFixed(1)} ms`;
        }),
        `webhook: 1 endpoint subscribed to *, on a receiver in the bench process that checks both signatures of every delivery; ${expected} events recorded after it was registered (${orders} orders), ${receiver.distinct} distinct deliveries received (${JSON.stringify(receiver.byEvent())}), ${receiver.duplicates} repeats, ${receiver.counts.verified} signatures verified, ${receiver.counts.badSignatures} bad; in the database ${succeeded} succeeded, ${failedDeliveries} failed, ${deliveries.pending ?? 0} pending; drained ${(drainMs / 1000).toFixed(1)} s after the traffic stopped`,
        `server log (LOG_LEVEL warn): ${serverLines.length} lines${serverLines.length ? `; the first ones: ${serverLines.slice(0, 3).join(' | ').slice(0, 1500)}` : ''}`,
        `memory of the API process from /proc every ${SAMPLE_MS / 1000} s from the start of the traffic; warm-up: the first ${(WARMUP_SHARE * 100).toFixed(0)}% (${warmupEnd.toFixed(0)} s), then a least-squares line through the ${measured.length} samples of the remaining ${measuredMinutes.toFixed(1)} min`,
        `no growth trend means: slope × measured minutes < ${GROWTH_TARGET_PERCENT}% of RSS at warm-up end (here ${projectedMb.toFixed(1)} MB = ${projectedPercent.toFixed(1)}% of ${atWarmupEnd.rssMb.toFixed(1)} MB); PSS slope ${pssFit.slope.toFixed(2)} MB/min`,
        `RSS MB (every ${SAMPLE_MS / 1000} s): ${series((s) => s.rssMb)}`,
        `resident MB by kind of mapping (bench/lib/proc.ts residentByKind), slope after warm-up: ${Object.keys(
          atEnd.kinds,
        )
          .map(
            (k) =>
              `${k} ${atWarmupEnd.kinds[k]?.toFixed(1)} → ${atEnd.kinds[k]?.toFixed(1)} MB (${fitOf((s) => s.kinds[k])?.slope.toFixed(2)} MB/min)`,
          )
          .join('; ')}`,
        `V8 pages mapped read-write MB (committed + V8's pool of freed pages, which it keeps resident and does not count as committed; the ceiling of anon 256 KB-aligned): ${series((s) => s.v8MappedMb)}`,
        `anon 256 KB-aligned resident MB: ${series((s) => s.kinds['anon 256 KB-aligned'])}; brk heap resident MB: ${series((s) => s.kinds['brk heap'])}`,
        `RSS ceiling (RSS + V8's mapped pages not yet resident) MB: ${series(ceilingOf)}; slope after warm-up ${ceilingFit.slope.toFixed(2)} MB/min, projecting ${ceilingPercent.toFixed(1)}% over the measured period`,
        `mappings that grew most from warm-up end to the end (start address, size, name: resident MB before → after): ${growthOf(atWarmupEnd.mappings, atEnd.mappings)}`,
        `PSS MB: ${series((s) => s.pssMb)}`,
        `V8 heap used MB (prom-client's nodejs_heap_size_used_bytes from /metrics, read just before each RSS): ${series((s) => s.heapMb)}; slope after warm-up ${heapFit?.slope.toFixed(2) ?? 'n/a'} MB/min`,
        `V8 heap floor (lowest reading) in each third of the measured period: ${floors.map((f) => f?.toFixed(1) ?? '–').join(', ')} MB; ${majorGcs} major collections after the warm-up`,
        `V8 heap committed MB (nodejs_heap_size_total_bytes): ${series((s) => s.heapTotalMb)}`,
        `external memory MB (nodejs_external_memory_bytes): ${series((s) => s.externalMb)}`,
        ...(pgdata
          ? [
              `postgres (the bench's embedded cluster, serving only this scenario's database) RSS MB: ${series((s) => s.pgRssMb)}; PSS MB: ${series((s) => s.pgPssMb)}; RSS slope after warm-up ${pgFit?.slope.toFixed(2) ?? 'n/a'} MB/min (RSS counts shared buffers once per backend as they touch them)`,
            ]
          : ['postgres: an external server (not measured)']),
      );
      log(notes.slice(3).join('\n'));

      return {
        notes,
        metrics: [
          metric({ name: 'RSS at warm-up end', unit: 'MB', ours: atWarmupEnd.rssMb }),
          metric({ name: 'RSS at end', unit: 'MB', ours: atEnd.rssMb }),
          metric({ name: 'RSS max', unit: 'MB', ours: maxRss }),
          metric({ name: 'RSS slope after warm-up', unit: 'MB/min', better: 'lower', ours: rssFit.slope }),
          metric({
            name: "RSS ceiling (RSS + V8's mapped pages not yet resident) growth projected, share at warm-up end",
            unit: '%',
            better: 'lower',
            ours: ceilingPercent,
          }),
          ...(floorGrowth !== undefined
            ? [
                metric({
                  name: 'V8 heap floor, last third vs first third of the measured period',
                  unit: '%',
                  better: 'lower',
                  ours: floorGrowth,
                  target: { on: 'value', op: '<', value: FLOOR_TARGET_PERCENT },
                }),
              ]
            : []),
          ...(heapFit
            ? [
                metric({
                  name: 'V8 heap slope after warm-up',
                  unit: 'MB/min',
                  better: 'lower',
                  ours: heapFit.slope,
                }),
              ]
            : []),
          metric({
            name: `RSS growth the slope projects over ${measuredMinutes.toFixed(1)} min`,
            unit: 'MB',
            ours: projectedMb,
          }),
          metric({
            name: 'RSS growth projected, share of RSS at warm-up end',
            unit: '%',
            better: 'lower',
            ours: projectedPercent,
            target: { on: 'value', op: '<', value: GROWTH_TARGET_PERCENT },
          }),
          metric({
            name: 'failed requests and bad signatures (all kinds)',
            unit: 'count',
            better: 'lower',
            ours: totalFailures,
            target: { on: 'value', op: '<', value: 1 },
          }),
          metric({
            name: 'webhook events delivered (of those recorded)',
            unit: 'count',
            better: 'higher',
            ours: Math.min(receiver.distinct, succeeded),
            target: { on: 'value', op: '>=', value: expected },
          }),
          metric({
            name: 'webhook deliveries failed',
            unit: 'count',
            better: 'lower',
            ours: failedDeliveries,
            target: { on: 'value', op: '<', value: 1 },
          }),
          metric({
            name: 'API process CPU',
            unit: '%',
            better: 'lower',
            ours: cpuShare * 100,
          }),
          ...tallies.map((t) =>
            metric({
              name: `${t.name} throughput`,
              unit: t === checkouts ? 'orders/s' : 'req/s',
              ours: t.ok / elapsed,
            }),
          ),
        ],
      };
    } finally {
      await cleanUp(log, release);
    }
  },
};
