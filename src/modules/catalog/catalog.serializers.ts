import { toDecimalString } from '../../platform/money.js';
import { stockStatus } from '../inventory/index.js';
import type { CategoryRow } from './categories.repository.js';
import type {
  ListedDetails,
  ListedForShop,
  ListedVariant,
  ProductDetails,
  ProductRow,
} from './products.repository.js';

const money = (minor: number | null, decimals: number) =>
  minor === null ? null : toDecimalString(minor, decimals);

type Media = ProductDetails['media'][number];

/** A product's images in order, each marked primary or not (the flagged one, else the first). */
function imagesOf<M extends Pick<Media, 'media_type' | 'is_primary'>, T>(
  media: M[],
  build: (m: M, primary: boolean) => T,
): T[] {
  const list = media.filter((m) => m.media_type === 'image');
  const primaryIndex = Math.max(
    0,
    list.findIndex((m) => m.is_primary),
  );
  return list.map((m, i) => build(m, i === primaryIndex));
}

function images(details: Pick<ProductDetails, 'media'>) {
  return imagesOf(details.media, (m, isPrimary) => ({
    id: m.id,
    url: m.url,
    alt: m.alt,
    isPrimary,
    position: m.position,
  }));
}

/** images() with the merchant's key names, built directly (it runs for every product of a list). */
function merchantImages(media: ListedDetails['media']) {
  return imagesOf(media, (m, isPrimary) => ({
    id: m.id,
    url: m.url,
    alt: m.alt,
    position: m.position,
    is_primary: isPrimary,
  }));
}

function variant(v: ListedVariant, decimals: number) {
  return {
    id: v.id,
    title: v.title,
    sku: v.sku,
    price: toDecimalString(v.price, decimals),
    compare_price: money(v.compare_price, decimals),
    inventory: v.inventory,
    weight_grams: v.weight_grams,
    options: v.options,
  };
}

/** What a merchant view needs of its store: money's decimals and the default low-stock threshold. */
export interface MerchantStore {
  decimals: number;
  lowStockThreshold: number;
}

/** Merchant view (/api/v1): snake_case, prices as decimal strings. */
/** `details` as loadDetails or listDetails read them (the variants' dates are not shown). */
export function productForMerchant(row: ProductRow, details: ListedDetails, store: MerchantStore) {
  const { decimals } = store;
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    description: row.description,
    status: row.status,
    price: toDecimalString(row.price, decimals),
    compare_price: money(row.compare_price, decimals),
    sku: row.sku,
    inventory: row.inventory,
    track_inventory: row.track_inventory,
    low_stock_threshold: row.low_stock_threshold,
    weight_grams: row.weight_grams,
    taxable: row.taxable,
    stock_status: stockStatus(
      row.inventory,
      row.track_inventory,
      row.low_stock_threshold ?? store.lowStockThreshold,
    ),
    category_ids: details.categoryIds,
    images: merchantImages(details.media),
    media: details.media
      .filter((m) => m.media_type === 'video')
      .map((m) => ({ id: m.id, url: m.url, media_type: 'video' as const })),
    options: row.options,
    variants: details.variants.map((v) => variant(v, decimals)),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

const inStock = (inventory: number, tracked: boolean) => !tracked || inventory > 0;

/**
 * Storefront list item (camelCase). The price is the one the product page opens on and checkout
 * charges: the cheapest variant's (see ListedForShop) with that variant's compare-at price only, so
 * "Was" never shows a price no variant had; `priceVaries` says the variants cost more ("from").
 */
export function productSummaryForStorefront(row: ListedForShop, image: string | undefined, decimals: number) {
  const hasVariants = row.from_price !== null;
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    price: toDecimalString(row.from_price ?? row.price, decimals),
    comparePrice: money(hasVariants ? row.from_compare_price : row.compare_price, decimals),
    priceVaries: row.price_varies === true,
    image: image ?? null,
    inStock: inStock(row.inventory, row.track_inventory),
  };
}

/** Storefront product page: `{ product, variants, images }`. */
export function productPageForStorefront(row: ProductRow, details: ProductDetails, decimals: number) {
  return {
    product: {
      id: row.id,
      name: row.name,
      slug: row.slug,
      description: row.description,
      price: toDecimalString(row.price, decimals),
      comparePrice: money(row.compare_price, decimals),
      sku: row.sku,
      inStock: inStock(row.inventory, row.track_inventory),
      options: row.options,
      categoryIds: details.categoryIds,
      videos: details.media.filter((m) => m.media_type === 'video').map((m) => ({ id: m.id, url: m.url })),
    },
    variants: details.variants.map((v) => ({
      id: v.id,
      title: v.title,
      sku: v.sku,
      price: toDecimalString(v.price, decimals),
      comparePrice: money(v.compare_price, decimals),
      inStock: inStock(v.inventory, row.track_inventory),
      options: v.options,
    })),
    images: images(details),
  };
}

export function categoryForMerchant(row: CategoryRow) {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    description: row.description,
    parent_id: row.parent_id,
    position: row.position,
    product_count: row.product_count,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export function categoryForStorefront(row: CategoryRow) {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    parentId: row.parent_id,
    productCount: row.product_count,
  };
}
