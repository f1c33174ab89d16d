import type { Services } from '../app.js';
import type { MediaStorage } from '../modules/media/index.js';
import { importHistoricOrders } from '../modules/orders/index.js';
import type { Db } from '../platform/db/database.js';
import type { RequestContext } from '../platform/http/context.js';
import { SCOPES } from '../platform/http/scopes.js';
import { toDecimalString } from '../platform/money.js';
import { COLOURS, SAMPLE_CATEGORIES, SIZES, sampleProduct } from './sample-catalog.js';
import { sampleCustomer } from './sample-data.js';
import { storeSampleImage } from './sample-images.js';
import { type Buyer, createOrderHistory, type Sellable } from './sample-orders.js';

export interface SeedOptions {
  storeSlug: string;
  customers: number;
  products: number;
  /** Historic orders (default none); they need the database handle passed to seedStore. */
  orders?: number;
  /** The days, counted back from now, the orders are spread over (default 365). */
  days?: number;
  onProgress?: (label: string, done: number, total: number) => void;
}

const BATCH = 1000;

async function seedCustomers(services: Services, storeId: string, options: SeedOptions) {
  const yearMs = 365 * 24 * 3600 * 1000;
  const now = Date.now();
  // A tag per run keeps e-mails unique when a store is seeded more than once.
  const runTag = `.${Date.now().toString(36)}`;
  let created = 0;
  while (created < options.customers) {
    const size = Math.min(BATCH, options.customers - created);
    const batch = Array.from({ length: size }, (_, i) => {
      const n = created + i;
      // Oldest first, so the newest-first listing shows the last batch on page one.
      const createdAt = new Date(now - yearMs + Math.floor((n / Math.max(1, options.customers)) * yearMs));
      return sampleCustomer(n, createdAt, runTag);
    });
    await services.customers.createMany(storeId, batch);
    created += size;
    options.onProgress?.('customers', created, options.customers);
  }
  return created;
}

/** Categories (a small tree), then products with generated images, options and variants. */
async function seedCatalog(
  services: Services,
  storage: MediaStorage,
  ctx: RequestContext,
  options: SeedOptions,
) {
  if (options.products === 0) return 0;
  const categoryIds = new Map<string, string>();
  const existing = await services.categories.list(ctx.storeId, { page: 1, limit: 100 });
  for (const row of existing.rows) categoryIds.set(row.name, row.id);
  for (const parent of SAMPLE_CATEGORIES) {
    if (!categoryIds.has(parent.name)) {
      categoryIds.set(parent.name, (await services.categories.create(ctx, { name: parent.name })).id);
    }
    for (const [position, child] of parent.children.entries()) {
      if (!categoryIds.has(child)) {
        const created = await services.categories.create(ctx, {
          name: child,
          parent_id: categoryIds.get(parent.name),
          position,
        });
        categoryIds.set(child, created.id);
      }
    }
  }
  const images = new Map<string, string>();
  const parentOf = new Map(SAMPLE_CATEGORIES.flatMap((p) => p.children.map((c) => [c, p.name] as const)));
  for (let n = 0; n < options.products; n++) {
    const sample = sampleProduct(n);
    let image = images.get(sample.name);
    if (!image) {
      image = await storeSampleImage(storage, sample.name, sample.hue);
      images.set(sample.name, image);
    }
    const categories = [sample.category, parentOf.get(sample.category)].flatMap((c) => {
      const id = c ? categoryIds.get(c) : undefined;
      return id ? [id] : [];
    });
    const price = toDecimalString(sample.priceMinor, 2);
    await services.products.create(ctx, {
      name: sample.name,
      description: `${sample.name}, from our ${sample.category.toLowerCase()} range.`,
      price,
      compare_price: n % 4 === 0 ? toDecimalString(sample.priceMinor + 1000, 2) : undefined,
      sku: `SKU-${String(n + 1).padStart(6, '0')}`,
      category_ids: categories,
      images: [{ url: image, alt: sample.name, is_primary: true }],
      status: n % 25 === 24 ? 'draft' : 'active',
      weight_grams: sample.weightGrams,
      ...(sample.sized
        ? {
            options: [
              { name: 'Size', values: SIZES },
              { name: 'Colour', values: COLOURS },
            ],
            variants: SIZES.flatMap((size, i) =>
              COLOURS.map((colour, j) => ({
                options: { Size: size, Colour: colour },
                sku: `SKU-${String(n + 1).padStart(6, '0')}-${size}-${colour.slice(0, 3).toUpperCase()}`,
                inventory: (n + i * 3 + j * 5) % 25,
              })),
            ),
          }
        : { inventory: (n * 13) % 60 }),
    });
    options.onProgress?.('products', n + 1, options.products);
  }
  return options.products;
}

/** At most this many products (their variants included) are drawn into orders. */
const ORDER_PRODUCTS = 1000;
/** Orders per INSERT statement (their line items and fulfilments go in one statement each). */
const DAY_MS = 24 * 3600 * 1000;

/** Buyers the orders are spread over: about four orders each, at most 20,000 distinct customers. */
export const buyersFor = (orders: number) => Math.min(20_000, Math.max(1, Math.ceil(orders / 4)));

/** What orders can contain: the store's active products, or each variant of those that have some. */
async function sellablesOf(services: Services, db: Db, ctx: RequestContext): Promise<Sellable[]> {
  const listed = await services.products.list(ctx, { page: 1, limit: ORDER_PRODUCTS }, { status: 'active' });
  const products = await services.products.lookupForOrder(
    db,
    ctx.storeId,
    listed.data.map((p) => p.id),
  );
  return [...products.values()].flatMap((product): Sellable[] =>
    product.variants.size === 0
      ? [
          {
            productId: product.id,
            variantId: null,
            name: product.name,
            variantTitle: null,
            sku: product.sku,
            price: product.price,
          },
        ]
      : [...product.variants.values()].map((variant) => ({
          productId: product.id,
          variantId: variant.id,
          name: product.name,
          variantTitle: variant.title,
          sku: variant.sku ?? product.sku,
          price: variant.price,
        })),
  );
}

/**
 * Historic orders, imported in bulk in one transaction (the orders module's importer: gapless
 * numbers after the store's own, creation times after its newest order). A failure leaves nothing
 * behind; the analytics rollups are rebuilt once at the end.
 */
async function seedOrders(
  services: Services,
  db: Db,
  ctx: RequestContext,
  buyers: Buyer[],
  sellables: Sellable[],
  options: SeedOptions & { orders: number },
) {
  const store = await services.stores.getStore(ctx.storeId);
  const count = options.orders;
  const toMs = Date.now();
  await db.transaction().execute((tx) =>
    services.analytics.bulkLoad(tx, ctx.storeId, () =>
      importHistoricOrders(
        tx,
        ctx.storeId,
        count,
        ({ firstNumber, newestCreatedAt }) =>
          createOrderHistory({
            storeId: ctx.storeId,
            currency: store.currency,
            pricing: {
              shippingFlatRate: store.shipping_flat_rate,
              freeShippingThreshold: store.free_shipping_threshold,
              taxRateBps: store.tax_rate_bps,
            },
            sellables,
            buyers,
            firstNumber,
            count,
            fromMs: Math.max(toMs - (options.days ?? 365) * DAY_MS, (newestCreatedAt?.getTime() ?? 0) + 1),
            toMs,
          }),
        (done, total) => options.onProgress?.('orders', done, total),
      ),
    ),
  );
  return count;
}

/**
 * Bulk demo data for a store: catalogue first, then customers in batched inserts, then orders (when
 * asked, with `db`). Orders need products and buyers: a store without active products gets a few,
 * and customers are added until there are enough buyers.
 */
export async function seedStore(services: Services, storage: MediaStorage, options: SeedOptions, db?: Db) {
  const store = await services.stores.requireStoreBySlug(options.storeSlug);
  const ctx: RequestContext = {
    storeId: store.id,
    actor: { kind: 'system', id: 'seed' },
    source: 'system',
    scopes: [...SCOPES],
  };
  const orders = options.orders ?? 0;
  if (orders > 0 && !db) throw new Error('seeding orders needs the database handle');
  let products = await seedCatalog(services, storage, ctx, options);
  let customersWanted = options.customers;
  if (orders > 0) {
    const existing = (await services.customers.list(ctx, { page: 1, limit: 1 }, {})).total;
    customersWanted = Math.max(customersWanted, buyersFor(orders) - existing);
  }
  const customers = await seedCustomers(services, store.id, { ...options, customers: customersWanted });
  if (orders > 0 && db) {
    let sellables = await sellablesOf(services, db, ctx);
    if (sellables.length === 0) {
      products += await seedCatalog(services, storage, ctx, { ...options, products: 12 });
      sellables = await sellablesOf(services, db, ctx);
    }
    const buyers = (await services.customers.list(ctx, { page: 1, limit: buyersFor(orders) }, {})).rows;
    await seedOrders(services, db, ctx, buyers, sellables, { ...options, orders });
  }
  return { store: { id: store.id, slug: store.slug }, products, customers, orders };
}
