import { isDeepStrictEqual } from 'node:util';
import Fastify from 'fastify';
import pg from 'pg';
import { listProducts } from '../../src/modules/catalog/products.repository.js';
import { stockStatus } from '../../src/modules/inventory/stock-status.js';
import { currencyDecimals, toDecimalString } from '../../src/platform/money.js';
import { capturingDb } from '../lib/capture-sql.js';
import { insertCatalogue } from '../lib/catalogue.js';
import { cleanUp, cleanUpStack } from '../lib/cleanup.js';
import { benchServerFor, persistentDatabase } from '../lib/database.js';
import { getJson, listenOnFreePort } from '../lib/http.js';
import { startAppOn } from '../lib/in-process-app.js';
import { measurePages } from '../lib/page-runs.js';
import { envNumber } from '../lib/rounds.js';
import type { Scenario } from '../lib/scenario.js';

const PRODUCTS = 100_000;
const LIMIT = 50;
const LAST_PAGE = PRODUCTS / LIMIT;
/** openDatabase's default pool size, which the app gets in `npm start`; the baseline gets the same. */
const POOL_SIZE = 10;
const P99_TARGET_MS = 30;
/** Kept on the server between runs: it holds the store MARKER_SLUG with exactly PRODUCTS products, or it is rebuilt. */
const DATABASE = 'emporium_bench_products_100k';
const MARKER_SLUG = 'bench-products-100k';
const PAGES = { first: 1, last: LAST_PAGE } as const;
const pathOf = (page: number) => `/api/v1/products?limit=${LIMIT}${page > 1 ? `&page=${page}` : ''}`;

/**
 * The classic list: newest first with OFFSET and an exact count(*) on every request, then the page's
 * media, variants and categories (as an ORM's eager load would).
 */
const CLASSIC_SQL = {
  page: `SELECT p.*, s.low_stock_threshold AS store_low_stock_threshold
    FROM products p JOIN stores s ON s.id = p.store_id
    WHERE p.store_id = $1 ORDER BY p.created_at DESC, p.id DESC LIMIT $2 OFFSET $3`,
  count: 'SELECT count(*) AS total FROM products WHERE store_id = $1',
  media:
    'SELECT * FROM product_media WHERE store_id = $1 AND product_id = ANY($2::uuid[]) ORDER BY position, id',
  variants:
    'SELECT * FROM product_variants WHERE store_id = $1 AND product_id = ANY($2::uuid[]) ORDER BY position, id',
  categories:
    'SELECT product_id, category_id FROM product_categories WHERE store_id = $1 AND product_id = ANY($2::uuid[]) ORDER BY category_id',
};

async function seededStore(pool: pg.Pool): Promise<string | undefined> {
  const result = await pool.query<{ id: string; products: string }>(
    `SELECT s.id, (SELECT count(*) FROM products p WHERE p.store_id = s.id) AS products FROM stores s WHERE s.slug = $1`,
    [MARKER_SLUG],
  );
  const row = result.rows[0];
  return row && Number(row.products) === PRODUCTS ? row.id : undefined;
}

/** The SQL our repository sends for the last page, captured from listProducts itself. */
async function captureRepositorySql(pool: pg.Pool, storeId: string) {
  const { db: capturing, queries } = capturingDb(pool);
  await listProducts(capturing, storeId, {}, { offset: (LAST_PAGE - 1) * LIMIT, limit: LIMIT });
  return queries.map((q) => `${q.sql.replace(/\s+/g, ' ').trim()}  -- ${JSON.stringify(q.parameters)}`);
}

interface Row {
  id: string;
  product_id: string;
  [column: string]: unknown;
}

/**
 * The classic handler: bare Fastify (no schemas, hooks or plugins) and a pg Pool, page and count in
 * parallel, then the page's media, variants and categories in parallel, the envelope built by hand.
 */
async function buildBaseline(pool: pg.Pool, store: { id: string; currency: string }) {
  const decimals = currencyDecimals(store.currency);
  const money = (minor: number | null) => (minor === null ? null : toDecimalString(Number(minor), decimals));
  const server = Fastify();
  server.get('/api/v1/products', async (request) => {
    const query = request.query as { page?: string; limit?: string };
    const limit = Number(query.limit ?? 20);
    const page = Number(query.page ?? 1);
    const [rows, count] = await Promise.all([
      pool.query<Row>(CLASSIC_SQL.page, [store.id, limit, (page - 1) * limit]),
      pool.query<{ total: string }>(CLASSIC_SQL.count, [store.id]),
    ]);
    const ids = rows.rows.map((p) => p.id);
    const [media, variants, categories] = await Promise.all(
      [CLASSIC_SQL.media, CLASSIC_SQL.variants, CLASSIC_SQL.categories].map((text) =>
        pool.query<Row>(text, [store.id, ids]),
      ),
    );
    const byProduct = (list: Row[] | undefined, id: string) =>
      (list ?? []).filter((r) => r.product_id === id);
    const total = Number(count.rows[0]?.total ?? 0);
    const totalPages = Math.ceil(total / limit);
    return {
      data: rows.rows.map((p) => {
        const images = byProduct(media?.rows, p.id).filter((m) => m.media_type === 'image');
        const primary = Math.max(
          0,
          images.findIndex((m) => m.is_primary),
        );
        return {
          id: p.id,
          name: p.name,
          slug: p.slug,
          description: p.description,
          status: p.status,
          price: money(p.price as number),
          compare_price: money(p.compare_price as number | null),
          sku: p.sku,
          inventory: p.inventory,
          track_inventory: p.track_inventory,
          low_stock_threshold: p.low_stock_threshold,
          // The product's shipping weight and tax flag of issue 31 (contract §12), in the API's order.
          weight_grams: p.weight_grams,
          taxable: p.taxable,
          stock_status: stockStatus(
            p.inventory as number,
            p.track_inventory as boolean,
            (p.low_stock_threshold ?? p.store_low_stock_threshold) as number,
          ),
          category_ids: byProduct(categories?.rows, p.id).map((c) => c.category_id),
          images: images.map((m, i) => ({
            id: m.id,
            url: m.url,
            alt: m.alt,
            is_primary: i === primary,
            position: m.position,
          })),
          media: byProduct(media?.rows, p.id)
            .filter((m) => m.media_type === 'video')
            .map((m) => ({ id: m.id, url: m.url, media_type: 'video' })),
          options: p.options,
          variants: byProduct(variants?.rows, p.id).map((v) => ({
            id: v.id,
            title: v.title,
            sku: v.sku,
            price: money(v.price as number),
            compare_price: money(v.compare_price as number | null),
            inventory: v.inventory,
            options: v.options,
          })),
          created_at: (p.created_at as Date).toISOString(),
          updated_at: (p.updated_at as Date).toISOString(),
        };
      }),
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
 * Both servers must answer both pages with the same data before either is measured; ours also has
 * the cursor of the next page, which the classic list does not have, so it is left out of the comparison.
 */
async function checkSameAnswer(oursUrl: string, baselineUrl: string, apiKey: string) {
  for (const page of Object.values(PAGES)) {
    const [ours, baseline] = await Promise.all([
      getJson(oursUrl + pathOf(page), { 'x-api-key': apiKey }),
      getJson(baselineUrl + pathOf(page)),
    ]);
    if (ours.status !== 200 || baseline.status !== 200) {
      throw new Error(
        `correctness check (page ${page}): status ours ${ours.status} ${JSON.stringify(ours.body).slice(0, 300)}, baseline ${baseline.status}`,
      );
    }
    const oursBody = ours.body as {
      data: Array<{ sku: string }>;
      meta: { pagination: Record<string, unknown> };
    };
    const baselineBody = baseline.body as { data: unknown[]; meta: unknown };
    // catalogueBatch numbers its products from 0, newest last, with SKU-<n + 1>.
    const expectedSku = `SKU-${String(PRODUCTS - (page - 1) * LIMIT).padStart(6, '0')}`;
    if (oursBody.data.length !== LIMIT || oursBody.data[0]?.sku !== expectedSku) {
      throw new Error(
        `correctness check (page ${page}): expected ${LIMIT} products from ${expectedSku}, ours returned ${JSON.stringify(oursBody).slice(0, 300)}`,
      );
    }
    if (!isDeepStrictEqual(oursBody.data, baselineBody.data)) {
      const i = oursBody.data.findIndex((item, n) => !isDeepStrictEqual(item, baselineBody.data[n]));
      throw new Error(
        `correctness check FAILED (page ${page}): the data arrays differ at index ${i}:\n  ours:     ${JSON.stringify(oursBody.data[i])}\n  baseline: ${JSON.stringify(baselineBody.data?.[i])}`,
      );
    }
    const { next_cursor: _cursor, ...oursPagination } = oursBody.meta.pagination;
    if (!isDeepStrictEqual({ pagination: oursPagination }, baselineBody.meta)) {
      throw new Error(
        `correctness check FAILED (page ${page}): meta differs: ours ${JSON.stringify(oursBody.meta)}, baseline ${JSON.stringify(baselineBody.meta)}`,
      );
    }
  }
}

export const scenario: Scenario = {
  name: 'products-list',
  description: `GET /api/v1/products?limit=${LIMIT} at page 1 and page ${LAST_PAGE.toLocaleString('en-US')} (the last) over ${PRODUCTS.toLocaleString('en-US')} products: the real app vs the classic OFFSET + count(*) on bare Fastify + pg`,

  async run(log) {
    const warmupSec = envNumber('BENCH_WARMUP', 3);
    const durationSec = envNumber('BENCH_DURATION', 10);
    const connections = envNumber('BENCH_CONNECTIONS', 10);
    const rounds = Math.round(envNumber('BENCH_ROUNDS', 1));
    const notes: string[] = [];
    const { release, onExit } = cleanUpStack();

    try {
      const target = await benchServerFor(log, notes, onExit);
      let url = await persistentDatabase(target.adminUrl, DATABASE, false);
      const probe = new pg.Pool({ connectionString: url, max: 1 });
      let storeId = await seededStore(probe).catch(() => undefined);
      await probe.end();
      // Missing or incomplete: start from an empty database.
      if (!storeId) url = await persistentDatabase(target.adminUrl, DATABASE, true);
      const { handle, app } = await startAppOn(url, onExit, POOL_SIZE);

      if (storeId) {
        log(
          `reusing database ${DATABASE}: store ${MARKER_SLUG} already holds ${PRODUCTS.toLocaleString('en-US')} products`,
        );
        notes.push(
          `products: reused from database ${DATABASE} (kept on the server between runs; drop it to re-seed)`,
        );
      } else {
        const store = await app.services.stores.createStore({ slug: MARKER_SLUG, name: 'Bench Products' });
        storeId = store.id;
        log(`inserting ${PRODUCTS.toLocaleString('en-US')} products into ${DATABASE} (kept for later runs)…`);
        const start = performance.now();
        const { imageRows } = await insertCatalogue(handle.db, storeId, PRODUCTS, (key) =>
          app.mediaStorage.publicUrl(key),
        );
        await handle.pool.query(
          'VACUUM (ANALYZE) products, product_media, product_variants, product_categories',
        );
        const seconds = ((performance.now() - start) / 1000).toFixed(0);
        log(`inserted in ${seconds} s (then VACUUM ANALYZE)`);
        notes.push(
          `products: ${PRODUCTS.toLocaleString('en-US')} catalogue products (${imageRows.toLocaleString('en-US')} images, no variants) inserted in this run in ${seconds} s, then VACUUM ANALYZE; kept in database ${DATABASE}`,
        );
      }
      const seededStoreId = storeId;
      const key = await app.services.stores.createApiKey(seededStoreId, {
        name: 'bench',
        scopes: ['products:read'],
      });
      onExit('API key', () => app.services.stores.revokeApiKeyById(key.id));

      notes.push(
        `ours: the repository SQL for page ${LAST_PAGE}, captured from listProducts:`,
        ...(await captureRepositorySql(handle.pool, seededStoreId)).map((q) => `  ${q}`),
        'baseline: page and count in parallel on every request, then the media, variants and categories of the page:',
        ...Object.entries(CLASSIC_SQL).map(([name, text]) => `  ${name}: ${text}`),
      );

      const baselinePool = new pg.Pool({ connectionString: url, max: POOL_SIZE });
      onExit('baseline pool', () => baselinePool.end());
      const baseline = await buildBaseline(baselinePool, await app.services.stores.getStore(seededStoreId));
      onExit('baseline server', () => baseline.close());
      const oursUrl = await listenOnFreePort(app.server);
      const baselineUrl = await listenOnFreePort(baseline);
      await checkSameAnswer(oursUrl, baselineUrl, key.key);
      log(
        `correctness check passed: identical data and pagination from both servers at pages 1 and ${LAST_PAGE}`,
      );

      const label =
        'bare Fastify 5 + pg Pool: ORDER BY created_at DESC LIMIT/OFFSET + count(*), no auth/schemas';
      const measured = await measurePages(
        {
          pages: PAGES,
          pathOf,
          urls: { ours: oursUrl, baseline: baselineUrl },
          headers: { ours: { 'x-api-key': key.key }, baseline: {} },
          connections,
          warmupSec,
          durationSec,
          rounds,
          setting: `both servers in the bench process, pools of ${POOL_SIZE}, rate limit 1e9/min, LOG_LEVEL silent`,
          log,
        },
        { baselineLabel: label, p99TargetMs: P99_TARGET_MS },
      );
      return { notes: [...notes, ...measured.notes], metrics: measured.metrics };
    } finally {
      await cleanUp(log, release);
    }
  },
};
