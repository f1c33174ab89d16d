import os from 'node:os';
import { isDeepStrictEqual } from 'node:util';
import Fastify from 'fastify';
import type { CompiledQuery } from 'kysely';
import pg from 'pg';
import { productPageForStorefront } from '../../src/modules/catalog/catalog.serializers.js';
import { createProductsService } from '../../src/modules/catalog/index.js';
import type { ProductDetails, ProductRow } from '../../src/modules/catalog/products.repository.js';
import { currencyDecimals, toDecimalString } from '../../src/platform/money.js';
import { capturingDb } from '../lib/capture-sql.js';
import { CATALOGUE_BATCH, insertCatalogue } from '../lib/catalogue.js';
import { cleanUp, cleanUpStack } from '../lib/cleanup.js';
import { getJson, listenOnFreePort } from '../lib/http.js';
import { startInProcessApp } from '../lib/in-process-app.js';
import { type MeasuredLoad, warmUpAndMeasure } from '../lib/load.js';
import { envNumber, medianLoad, roundOrder } from '../lib/rounds.js';
import { metric, type Scenario } from '../lib/scenario.js';

const PRODUCTS = 10_000;
const LIMIT = 20;
/** Fixed by the issue this scenario answers: the p99 target is defined at this concurrency. */
const CONNECTIONS = 50;
/** openDatabase's default pool size, which the app gets in `npm start`; the baseline gets the same. */
const POOL_SIZE = 10;
const SLUG = 'bench';
const PATH = `/api/storefront/${SLUG}/products?limit=${LIMIT}&sort=newest`;
/** The list's first 20 pages, taken in turn: what a shopper paging through the newest sees. */
const LIST_PAGES = 20;
const LIST_PATHS = Array.from({ length: LIST_PAGES }, (_, i) => (i === 0 ? PATH : `${PATH}&page=${i + 1}`));
/** Product pages asked for, in turn: a hot tenth of the catalogue. */
const HOT_PRODUCTS = Number(process.env.BENCH_HOT_PRODUCTS ?? 1_000);
/** Issue 18's targets, both for the list and the product page. */
const P99_TARGET_MS = 25;
const THROUGHPUT_RATIO_TARGET = 3;

interface CapturedSql {
  pageSql: string;
  countSql: string;
  imagesSql: string;
}

/**
 * The SQL our storefront list sends, captured by running the products service's `storefrontList`
 * itself (the route's only database work once the store is cached) on a Kysely instance whose log
 * records each compiled query: the baseline then runs exactly that text.
 */
async function captureServiceSql(
  pool: pg.Pool,
  deps: Omit<Parameters<typeof createProductsService>[0], 'db' | 'media'>,
  store: { id: string; currency: string },
): Promise<CapturedSql> {
  const { db: capturing, queries } = capturingDb(pool);
  const products = createProductsService({
    ...deps,
    db: capturing,
    media: {
      rehostImages: () => Promise.reject(new Error('the storefront list never re-hosts images')),
    },
  });
  const { data } = await products.storefrontList(store, { page: 1, limit: LIMIT }, { sort: 'newest' });
  const page = queries.find((q) => /\blimit\b/i.test(q.sql));
  const count = queries.find((q) => /\bcount\(/i.test(q.sql));
  const images = queries.find((q) => /\bdistinct on\b/i.test(q.sql));
  if (queries.length !== 3 || !page || !count || !images) {
    throw new Error(
      `expected a page, a count and an image query, got: ${queries.map((q) => q.sql).join(' | ')}`,
    );
  }
  // The baseline binds [store, 'active', limit, offset], [store, 'active'] and [store, …page ids,
  // 'image']: make sure that is the order used.
  const ids = data.map((p) => p.id);
  if (
    !isDeepStrictEqual(page.parameters, [store.id, 'active', LIMIT, 0]) ||
    !isDeepStrictEqual(count.parameters, [store.id, 'active']) ||
    !isDeepStrictEqual(images.parameters, [store.id, ...ids, 'image'])
  ) {
    throw new Error(
      `unexpected parameters: page ${JSON.stringify(page.parameters)}, count ${JSON.stringify(count.parameters)}, images ${JSON.stringify(images.parameters)}`,
    );
  }
  return { pageSql: page.sql, countSql: count.sql, imagesSql: images.sql };
}

interface CapturedProductSql {
  /** The product by slug with its variants, media and category ids (one statement). */
  product: CompiledQuery;
  /** The slug the capture ran with: the baseline puts each request's own in its place. */
  slug: string;
}

/** The SQL of the product page (`storefrontProduct`), captured the same way as the list's. */
async function captureProductSql(
  pool: pg.Pool,
  deps: Omit<Parameters<typeof createProductsService>[0], 'db' | 'media'>,
  store: { id: string; currency: string },
  slug: string,
): Promise<CapturedProductSql> {
  const { db: capturing, queries } = capturingDb(pool);
  const products = createProductsService({
    ...deps,
    db: capturing,
    media: { rehostImages: () => Promise.reject(new Error('a product page never re-hosts images')) },
  });
  await products.storefrontProduct(store, slug);
  const [product] = queries;
  if (queries.length !== 1 || !product?.parameters.includes(slug)) {
    throw new Error(
      `expected one statement for the product page, got: ${queries.map((q) => q.sql).join(' | ')}`,
    );
  }
  return { product, slug };
}

/** The captured parameters with `from` replaced by `to` (a slug or an id, alone or in an array). */
const rebind = (parameters: readonly unknown[], from: string, to: string) =>
  parameters.map((value) =>
    value === from ? to : Array.isArray(value) ? value.map((v) => (v === from ? to : v)) : value,
  );

interface ProductRecord {
  id: string;
  name: string;
  slug: string;
  price: number;
  compare_price: number | null;
  inventory: number;
  track_inventory: boolean;
  from_price: number | null;
  from_compare_price: number | null;
  price_varies: boolean | null;
}

/**
 * The floor: bare Fastify (no schemas, hooks or plugins, no ETag) and a pg Pool, running the
 * service's three queries in the same order (page and count in parallel, then the primary images of
 * that page) for a store resolved once at start, and building the same envelope by hand. The image
 * query's text holds one placeholder per product of a full page, so it only serves `limit=20`.
 */
async function buildBaseline(
  pool: pg.Pool,
  store: { id: string; currency: string },
  sql: CapturedSql,
  productSql: CapturedProductSql,
) {
  const decimals = currencyDecimals(store.currency);
  const server = Fastify();
  // The product page: the same statement (the product with its details as JSON columns), mapped by
  // the serialiser our route uses (a pure function from rows to the answer's shape).
  server.get('/api/storefront/:slug/products/:productSlug', async (request, reply) => {
    const { productSlug } = request.params as { productSlug: string };
    const found = await pool.query<
      ProductRow & {
        variants: ProductDetails['variants'];
        media: ProductDetails['media'];
        category_ids: string[];
      }
    >(productSql.product.sql, rebind(productSql.product.parameters, productSql.slug, productSlug));
    const row = found.rows[0];
    if (!row) return reply.code(404).send({ error: 'not found' });
    const details = { variants: row.variants, media: row.media, categoryIds: row.category_ids };
    return { data: productPageForStorefront(row, details, decimals) };
  });
  server.get('/api/storefront/:slug/products', async (request, reply) => {
    const query = request.query as { page?: string; limit?: string };
    const limit = Number(query.limit ?? 20);
    const page = Number(query.page ?? 1);
    const [rows, count] = await Promise.all([
      pool.query<ProductRecord>(sql.pageSql, [store.id, 'active', limit, (page - 1) * limit]),
      pool.query<{ total: number | string }>(sql.countSql, [store.id, 'active']),
    ]);
    if (rows.rows.length !== LIMIT) {
      return reply.code(500).send({ error: `the baseline serves full pages of ${LIMIT} only` });
    }
    const images = await pool.query<{ product_id: string; url: string }>(sql.imagesSql, [
      store.id,
      ...rows.rows.map((r) => r.id),
      'image',
    ]);
    const imageOf = new Map(images.rows.map((r) => [r.product_id, r.url]));
    const total = Number(count.rows[0]?.total ?? 0);
    const totalPages = Math.ceil(total / limit);
    return {
      data: rows.rows.map((r) => ({
        id: r.id,
        name: r.name,
        slug: r.slug,
        // A product with variants lists its cheapest variant's price (the page's lateral columns).
        price: toDecimalString(r.from_price ?? r.price, decimals),
        comparePrice: ((c) => (c === null ? null : toDecimalString(c, decimals)))(
          r.from_price === null ? r.compare_price : r.from_compare_price,
        ),
        priceVaries: r.price_varies === true,
        image: imageOf.get(r.id) ?? null,
        inStock: !r.track_inventory || r.inventory > 0,
      })),
      meta: {
        pagination: {
          page,
          limit,
          total,
          total_pages: totalPages,
          has_next: page < totalPages,
          has_prev: page > 1,
        },
      },
    };
  });
  await server.ready();
  return server;
}

/**
 * Both servers must answer the same request with the same data before either is measured. Ours
 * must also send its ETag and Cache-Control, and answer 304 to that ETag: the load generator sends
 * no If-None-Match, so every measured request is a full 200 (a 304 would fail the run as non-2xx).
 */
async function checkSameAnswer(oursUrl: string, baselineUrl: string) {
  const [ours, baseline] = await Promise.all([getJson(oursUrl + PATH), getJson(baselineUrl + PATH)]);
  if (ours.status !== 200 || baseline.status !== 200) {
    throw new Error(
      `correctness check: status ours ${ours.status} ${JSON.stringify(ours.body).slice(0, 300)}, baseline ${baseline.status} ${JSON.stringify(baseline.body).slice(0, 300)}`,
    );
  }
  const oursBody = ours.body as { data: Array<{ image: string | null }>; meta: unknown };
  const baselineBody = baseline.body as { data: unknown[]; meta: unknown };
  if (
    !Array.isArray(oursBody.data) ||
    oursBody.data.length !== LIMIT ||
    oursBody.data.some((p) => !p.image)
  ) {
    throw new Error(`correctness check: ours returned ${JSON.stringify(oursBody).slice(0, 300)}`);
  }
  if (!isDeepStrictEqual(oursBody.data, baselineBody.data)) {
    const i = oursBody.data.findIndex((item, n) => !isDeepStrictEqual(item, baselineBody.data[n]));
    throw new Error(
      `correctness check FAILED: the data arrays differ at index ${i}:\n  ours:     ${JSON.stringify(oursBody.data[i])}\n  baseline: ${JSON.stringify(baselineBody.data?.[i])}`,
    );
  }
  if (!isDeepStrictEqual(oursBody.meta, baselineBody.meta)) {
    throw new Error(
      `correctness check FAILED: meta differs: ours ${JSON.stringify(oursBody.meta)}, baseline ${JSON.stringify(baselineBody.meta)}`,
    );
  }

  const full = await fetch(oursUrl + PATH);
  await full.arrayBuffer();
  const etag = full.headers.get('etag');
  const cacheControl = full.headers.get('cache-control');
  if (full.status !== 200 || !etag || cacheControl !== 'public, max-age=30') {
    throw new Error(
      `correctness check: ours answered ${full.status} with ETag ${etag} and Cache-Control ${cacheControl}`,
    );
  }
  const revalidated = await fetch(oursUrl + PATH, { headers: { 'if-none-match': etag } });
  await revalidated.arrayBuffer();
  if (revalidated.status !== 304) {
    throw new Error(`correctness check: ours answered ${revalidated.status} to If-None-Match ${etag}`);
  }
  return { etag, cacheControl };
}

/** Both servers answer the same product pages (the first, middle and last hot product). */
async function checkSameProduct(oursUrl: string, baselineUrl: string, paths: string[]) {
  for (const p of [paths[0], paths[Math.floor(paths.length / 2)], paths[paths.length - 1]] as string[]) {
    const [ours, baseline] = await Promise.all([getJson(oursUrl + p), getJson(baselineUrl + p)]);
    if (ours.status !== 200 || !isDeepStrictEqual(ours.body, baseline.body)) {
      throw new Error(
        `correctness check FAILED for ${p}: ours ${ours.status} ${JSON.stringify(ours.body).slice(0, 3000)}, baseline ${baseline.status} ${JSON.stringify(baseline.body).slice(0, 3000)}`,
      );
    }
  }
}

export const scenario: Scenario = {
  name: 'storefront-products',
  description: `GET ${PATH} (pages 1–${LIST_PAGES}) and ${HOT_PRODUCTS} product pages over ${PRODUCTS.toLocaleString('en-US')} active products: the real app vs bare Fastify + pg`,

  async run(log) {
    const warmupSec = envNumber('BENCH_WARMUP', 3);
    const durationSec = envNumber('BENCH_DURATION', 10);
    const rounds = Math.round(envNumber('BENCH_ROUNDS', 1));
    const connections = CONNECTIONS;
    const notes: string[] = [];
    const { release, onExit } = cleanUpStack();

    try {
      const { fresh, handle, app } = await startInProcessApp(log, notes, onExit, POOL_SIZE);

      const store = await app.services.stores.createStore({ slug: SLUG, name: 'Bench Store' });
      const seedStart = performance.now();
      const { imageRows } = await insertCatalogue(handle.db, store.id, PRODUCTS, (key) =>
        app.mediaStorage.publicUrl(key),
      );
      // A steady state rather than whatever autovacuum has reached: visibility map set, statistics fresh.
      await handle.pool.query('VACUUM (ANALYZE) products, product_media');
      const seedMs = Math.round(performance.now() - seedStart);
      log(`seeded ${PRODUCTS} active products and ${imageRows} images in ${seedMs} ms (then VACUUM ANALYZE)`);
      notes.push(
        `catalogue: ${PRODUCTS} active products (seed sample names and prices, 10% untracked stock) and ${imageRows} image rows ` +
          `(one primary each, a second image on every third product), inserted in batches of ${CATALOGUE_BATCH} as rows typed by the ` +
          `catalogue's table types (the service has no bulk create), in ${seedMs} ms, then VACUUM ANALYZE`,
      );

      const serviceDeps = { stores: app.services.stores, inventory: app.services.inventory };
      const sql = await captureServiceSql(handle.pool, serviceDeps, store);
      const slugs = (
        await handle.db
          .selectFrom('products')
          .select('slug')
          .where('store_id', '=', store.id)
          .orderBy('id')
          .execute()
      ).map((r) => r.slug);
      // Every tenth product, spread over the catalogue (not only the newest).
      const hot = slugs
        .filter((_, i) => i % Math.floor(PRODUCTS / HOT_PRODUCTS) === 0)
        .slice(0, HOT_PRODUCTS);
      const productPaths = hot.map((slug) => `/api/storefront/${SLUG}/products/${slug}`);
      const productSql = await captureProductSql(handle.pool, serviceDeps, store, hot[0] as string);
      notes.push(
        'baseline SQL: captured from our service (storefrontList and storefrontProduct run once on a logging Kysely, compiled text reused verbatim); ' +
          'the store itself is resolved by slug from a 5 s in-process cache in ours, once at start in the baseline',
        `  list page:   ${sql.pageSql}`,
        `  list count:  ${sql.countSql}`,
        `  list images: ${sql.imagesSql}`,
        `  product:     ${productSql.product.sql}`,
      );

      const baselinePool = new pg.Pool({ connectionString: fresh.url, max: POOL_SIZE });
      onExit('baseline pool', () => baselinePool.end());
      const baseline = await buildBaseline(baselinePool, store, sql, productSql);
      onExit('baseline server', () => baseline.close());
      const oursUrl = await listenOnFreePort(app.server);
      const baselineUrl = await listenOnFreePort(baseline);
      const caching = await checkSameAnswer(oursUrl, baselineUrl);
      await checkSameProduct(oursUrl, baselineUrl, productPaths);
      log(
        `correctness check passed: identical data and meta, identical product pages; ours sends ETag and Cache-Control "${caching.cacheControl}" and answers 304 to If-None-Match`,
      );
      notes.push(
        `ours sends ETag (a SHA-1 of each body) and Cache-Control "${caching.cacheControl}" and answers 304 to a matching If-None-Match; ` +
          'autocannon sends no If-None-Match, and any non-2xx answer fails the run, so every measured request was a full 200 with its body',
        'ours keeps each list and product answer serialised for at most 5 s (fresh for 60–80% of that, then re-rendered in the background), keyed by the ' +
          "store's catalogue version, which every committed product, category or stock change moves, in every API process (LISTEN/NOTIFY): " +
          'docs/performance.md, "Storefront answers kept"; the baseline reads the database on every request',
      );

      const kinds = {
        list: { paths: LIST_PATHS, label: `product list (pages 1–${LIST_PAGES} in turn)` },
        product: { paths: productPaths, label: `product page (${HOT_PRODUCTS} products in turn)` },
      } as const;
      const measured: Record<keyof typeof kinds, Record<'ours' | 'baseline', MeasuredLoad>> = {
        list: {} as Record<'ours' | 'baseline', MeasuredLoad>,
        product: {} as Record<'ours' | 'baseline', MeasuredLoad>,
      };
      for (const kind of Object.keys(kinds) as (keyof typeof kinds)[]) {
        const runs: Record<'ours' | 'baseline', MeasuredLoad[]> = { ours: [], baseline: [] };
        for (let round = 0; round < rounds; round++) {
          for (const which of roundOrder(round)) {
            log(
              `${kind}, ${which}${rounds > 1 ? ` (round ${round + 1}/${rounds})` : ''}: ${warmupSec} s warm-up + ${durationSec} s, ${connections} connections…`,
            );
            const base = which === 'ours' ? oursUrl : baselineUrl;
            const paths = kinds[kind].paths;
            runs[which].push(
              await warmUpAndMeasure({
                url: base + paths[0],
                paths,
                headers: {},
                connections,
                warmupSec,
                durationSec,
              }),
            );
          }
        }
        measured[kind] = { ours: medianLoad(runs.ours), baseline: medianLoad(runs.baseline) };
        notes.push(
          ...(['ours', 'baseline'] as const).flatMap((which) =>
            runs[which].map(
              (r, i) =>
                `${kinds[kind].label}, ${which}${rounds > 1 ? ` round ${i + 1}` : ''}: ${r.totalRequests} requests, ${r.requestsPerSec.toFixed(1)} req/s, ` +
                `p50 ${r.latencyP50Ms} ms, p99 ${r.latencyP99Ms} ms, max ${r.latencyMaxMs} ms, server CPU user ${r.serverCpuUserUsPerRequest.toFixed(0)} + ` +
                `system ${r.serverCpuSystemUsPerRequest.toFixed(0)} µs/request, load average before ${r.loadAverageBefore.toFixed(2)}`,
            ),
          ),
        );
      }
      notes.push(
        `load: autocannon in a child process, ${connections} connections (fixed for this scenario: BENCH_CONNECTIONS does not apply), ` +
          `${warmupSec} s warm-up then ${durationSec} s measured` +
          `${rounds > 1 ? `, ${rounds} alternating rounds (medians shown)` : ''}; ` +
          `both servers in the bench process, pools of ${POOL_SIZE}, LOG_LEVEL silent`,
        `with ${connections} connections in flight, mean latency ≈ ${connections} / throughput (Little's law): a p99 under ${P99_TARGET_MS} ms ` +
          `needs well over ${Math.round((connections * 1000) / P99_TARGET_MS)} req/s`,
        'the servers, PostgreSQL (if local) and autocannon share the same CPUs; both servers are measured under the same conditions',
        `(load average: the machine's 1-minute figure on ${os.cpus().length} CPUs; well above ~1 means other work was competing)`,
      );

      const label = 'bare Fastify 5 + pg Pool, same SQL, no validation/schemas/ETag/cache';
      return {
        notes,
        metrics: (Object.keys(kinds) as (keyof typeof kinds)[]).flatMap((kind) => {
          const { ours, baseline: bare } = measured[kind];
          const name = kind === 'list' ? 'product list' : 'product page';
          return [
            metric({
              name: `${name}: throughput`,
              unit: 'req/s',
              ours: ours.requestsPerSec,
              baseline: bare.requestsPerSec,
              baselineLabel: label,
              target: { on: 'ratio', op: '>=', value: THROUGHPUT_RATIO_TARGET },
            }),
            metric({
              name: `${name}: latency p99`,
              unit: 'ms',
              ours: ours.latencyP99Ms,
              baseline: bare.latencyP99Ms,
              baselineLabel: label,
              target: { on: 'value', op: '<', value: P99_TARGET_MS },
            }),
            metric({
              name: `${name}: latency p50`,
              unit: 'ms',
              ours: ours.latencyP50Ms,
              baseline: bare.latencyP50Ms,
              baselineLabel: label,
            }),
            metric({
              name: `${name}: server CPU per request`,
              unit: 'µs',
              ours: ours.serverCpuUsPerRequest,
              baseline: bare.serverCpuUsPerRequest,
              baselineLabel: label,
            }),
          ];
        }),
      };
    } finally {
      await cleanUp(log, release);
    }
  },
};
