import { type Kysely, sql } from 'kysely';

/** Products, variants, media, categories and the inventory adjustment history. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE products (
      id uuid PRIMARY KEY,
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      name text NOT NULL,
      slug text NOT NULL,
      description text NOT NULL DEFAULT '',
      status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'draft', 'archived')),
      price bigint NOT NULL CHECK (price >= 0),
      compare_price bigint CHECK (compare_price >= 0),
      sku text,
      inventory integer NOT NULL DEFAULT 0,
      track_inventory boolean NOT NULL DEFAULT true,
      low_stock_threshold integer CHECK (low_stock_threshold >= 0),
      options jsonb NOT NULL DEFAULT '[]',
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT products_store_slug_key UNIQUE (store_id, slug),
      CONSTRAINT products_inventory_check CHECK (NOT track_inventory OR inventory >= 0)
    )`.execute(db);
  await sql`CREATE INDEX products_store_created_idx ON products (store_id, created_at DESC, id DESC)`.execute(
    db,
  );
  await sql`CREATE INDEX products_store_status_created_idx ON products (store_id, status, created_at DESC, id DESC)`.execute(
    db,
  );
  await sql`CREATE INDEX products_store_price_idx ON products (store_id, status, price, id)`.execute(db);
  await sql`CREATE INDEX products_store_name_idx ON products (store_id, status, lower(name), id)`.execute(db);

  await sql`
    CREATE TABLE product_variants (
      id uuid PRIMARY KEY,
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      product_id uuid NOT NULL REFERENCES products (id) ON DELETE CASCADE,
      title text NOT NULL,
      sku text,
      price bigint NOT NULL CHECK (price >= 0),
      compare_price bigint CHECK (compare_price >= 0),
      inventory integer NOT NULL DEFAULT 0,
      options jsonb NOT NULL DEFAULT '{}',
      position integer NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE INDEX product_variants_product_idx ON product_variants (store_id, product_id, position)`.execute(
    db,
  );

  await sql`
    CREATE TABLE product_media (
      id uuid PRIMARY KEY,
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      product_id uuid NOT NULL REFERENCES products (id) ON DELETE CASCADE,
      media_type text NOT NULL CHECK (media_type IN ('image', 'video')),
      url text NOT NULL,
      source_url text,
      alt text,
      is_primary boolean NOT NULL DEFAULT false,
      position integer NOT NULL DEFAULT 0
    )`.execute(db);
  await sql`CREATE INDEX product_media_product_idx ON product_media (store_id, product_id, position)`.execute(
    db,
  );

  await sql`
    CREATE TABLE categories (
      id uuid PRIMARY KEY,
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      name text NOT NULL,
      slug text NOT NULL,
      description text NOT NULL DEFAULT '',
      parent_id uuid REFERENCES categories (id) ON DELETE SET NULL,
      position integer NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT categories_store_slug_key UNIQUE (store_id, slug)
    )`.execute(db);
  await sql`CREATE INDEX categories_store_idx ON categories (store_id, position, name)`.execute(db);

  await sql`
    CREATE TABLE product_categories (
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      product_id uuid NOT NULL REFERENCES products (id) ON DELETE CASCADE,
      category_id uuid NOT NULL REFERENCES categories (id) ON DELETE CASCADE,
      PRIMARY KEY (product_id, category_id)
    )`.execute(db);
  await sql`CREATE INDEX product_categories_category_idx ON product_categories (category_id, product_id)`.execute(
    db,
  );

  await sql`
    CREATE TABLE inventory_adjustments (
      id uuid PRIMARY KEY,
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      product_id uuid NOT NULL,
      variant_id uuid,
      previous integer NOT NULL,
      adjustment integer NOT NULL,
      inventory integer NOT NULL,
      reason text,
      source text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE INDEX inventory_adjustments_product_idx ON inventory_adjustments (store_id, product_id, created_at DESC)`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'inventory_adjustments',
    'product_categories',
    'categories',
    'product_media',
    'product_variants',
    'products',
  ]) {
    await sql`DROP TABLE IF EXISTS ${sql.table(table)}`.execute(db);
  }
}
