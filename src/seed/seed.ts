import type { Services } from '../app.js';
import type { MediaStorage } from '../modules/media/index.js';
import type { RequestContext } from '../platform/http/context.js';
import { SCOPES } from '../platform/http/scopes.js';
import { toDecimalString } from '../platform/money.js';
import { COLOURS, SAMPLE_CATEGORIES, SIZES, sampleProduct } from './sample-catalog.js';
import { sampleCustomer } from './sample-data.js';
import { storeSampleImage } from './sample-images.js';

export interface SeedOptions {
  storeSlug: string;
  customers: number;
  products: number;
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

/** Bulk demo data for a store: catalogue first, then customers in batched inserts. */
export async function seedStore(services: Services, storage: MediaStorage, options: SeedOptions) {
  const store = await services.stores.requireStoreBySlug(options.storeSlug);
  const ctx: RequestContext = {
    storeId: store.id,
    actor: { kind: 'system', id: 'seed' },
    source: 'system',
    scopes: [...SCOPES],
  };
  const products = await seedCatalog(services, storage, ctx, options);
  const customers = await seedCustomers(services, store.id, options);
  return { store: { id: store.id, slug: store.slug }, products, customers };
}
