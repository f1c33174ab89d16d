import type { ColumnType } from 'kysely';
import type { Timestamp } from '../../platform/db/schema.js';

export type ProductStatus = 'active' | 'draft' | 'archived';
export interface ProductOption {
  name: string;
  values: string[];
}

type Json<T> = ColumnType<T, string | undefined, string>;
type Defaulted<T> = ColumnType<T, T | undefined, T>;

export interface ProductsTable {
  id: string;
  store_id: string;
  name: string;
  slug: string;
  description: Defaulted<string>;
  status: Defaulted<ProductStatus>;
  price: number;
  compare_price: Defaulted<number | null>;
  sku: Defaulted<string | null>;
  inventory: Defaulted<number>;
  track_inventory: Defaulted<boolean>;
  low_stock_threshold: Defaulted<number | null>;
  options: Json<ProductOption[]>;
  weight_grams: Defaulted<number>;
  /** Contract §12: lines of a product that is not taxable carry no tax. */
  taxable: Defaulted<boolean>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ProductVariantsTable {
  id: string;
  store_id: string;
  product_id: string;
  title: string;
  sku: Defaulted<string | null>;
  price: number;
  compare_price: Defaulted<number | null>;
  inventory: Defaulted<number>;
  options: Json<Record<string, string>>;
  /** null: the product's weight. */
  weight_grams: Defaulted<number | null>;
  position: Defaulted<number>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ProductMediaTable {
  id: string;
  store_id: string;
  product_id: string;
  media_type: 'image' | 'video';
  url: string;
  source_url: Defaulted<string | null>;
  alt: Defaulted<string | null>;
  is_primary: Defaulted<boolean>;
  position: Defaulted<number>;
}

export interface CategoriesTable {
  id: string;
  store_id: string;
  name: string;
  slug: string;
  description: Defaulted<string>;
  parent_id: Defaulted<string | null>;
  position: Defaulted<number>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ProductCategoriesTable {
  store_id: string;
  product_id: string;
  category_id: string;
}

/** Products per store and status, kept by triggers on products (written by no code of ours). */
export interface ProductCountsTable {
  store_id: string;
  status: ProductStatus;
  count: ColumnType<string, never, never>;
}

declare module '../../platform/db/schema.js' {
  interface Database {
    products: ProductsTable;
    product_variants: ProductVariantsTable;
    product_media: ProductMediaTable;
    categories: CategoriesTable;
    product_categories: ProductCategoriesTable;
    product_counts: ProductCountsTable;
  }
}
