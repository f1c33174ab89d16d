import { createHash } from 'node:crypto';
import type { Insertable } from 'kysely';
import type { ProductMediaTable, ProductsTable } from '../../src/modules/catalog/catalog.tables.js';
import { slugify } from '../../src/modules/catalog/slug.js';
import type { Db } from '../../src/platform/db/database.js';
import { newId } from '../../src/platform/ids.js';
import { sampleProduct } from '../../src/seed/sample-catalog.js';

/** Rows per INSERT statement. */
export const CATALOGUE_BATCH = 1000;

/**
 * One batch of catalogue rows, typed by the catalogue's own table types (what the repository
 * inserts): active products built from the seed's sample names and prices, with distinct,
 * increasing creation times (so newest-first is one well-defined order), one primary image each
 * and, for every third product, a second image that is not primary.
 */
export function catalogueBatch(
  storeId: string,
  from: number,
  size: number,
  publicUrl: (key: string) => string,
) {
  const base = Date.UTC(2026, 0, 1);
  const products: Insertable<ProductsTable>[] = [];
  const media: Insertable<ProductMediaTable>[] = [];
  for (let n = from; n < from + size; n++) {
    const sample = sampleProduct(n);
    const id = newId();
    const createdAt = new Date(base + n * 1000);
    products.push({
      id,
      store_id: storeId,
      name: sample.name,
      slug: `${slugify(sample.name)}-${n + 1}`,
      description: `${sample.name}, from our ${sample.category.toLowerCase()} range.`,
      status: 'active',
      price: sample.priceMinor,
      compare_price: n % 4 === 0 ? sample.priceMinor + 1000 : null,
      sku: `SKU-${String(n + 1).padStart(6, '0')}`,
      inventory: (n * 13) % 60,
      track_inventory: n % 10 !== 0,
      options: '[]',
      created_at: createdAt,
      updated_at: createdAt,
    });
    const imageCount = n % 3 === 0 ? 2 : 1;
    for (let position = 0; position < imageCount; position++) {
      const key = `images/${createHash('sha256').update(`${n}:${position}`).digest('hex')}.webp`;
      media.push({
        id: newId(),
        store_id: storeId,
        product_id: id,
        media_type: 'image',
        url: publicUrl(key),
        alt: sample.name,
        is_primary: position === 0,
        position,
      });
    }
  }
  return { products, media };
}

/**
 * `count` catalogue products (see catalogueBatch) inserted in batches of CATALOGUE_BATCH, one
 * transaction per batch: the products service creates one product at a time, which takes minutes for
 * ten thousand. Returns the number of image rows written.
 */
export async function insertCatalogue(
  db: Db,
  storeId: string,
  count: number,
  publicUrl: (key: string) => string,
): Promise<{ imageRows: number }> {
  let imageRows = 0;
  for (let offset = 0; offset < count; offset += CATALOGUE_BATCH) {
    const batch = catalogueBatch(storeId, offset, Math.min(CATALOGUE_BATCH, count - offset), publicUrl);
    await db.transaction().execute(async (tx) => {
      await tx.insertInto('products').values(batch.products).execute();
      await tx.insertInto('product_media').values(batch.media).execute();
    });
    imageRows += batch.media.length;
  }
  return { imageRows };
}
