import { type Kysely, sql } from 'kysely';

/**
 * Discounts (coupon codes and automatic discounts), the products and categories they are limited
 * to, and one redemption row per order that used one. `value` is hundredths of a percent for
 * percentage discounts (1250 = 12.5 %), minor units for fixed amounts, 0 for free shipping.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE discounts (
      id uuid PRIMARY KEY,
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      code text,
      title text NOT NULL,
      type text NOT NULL CHECK (type IN ('percentage', 'fixed_amount', 'free_shipping')),
      value bigint NOT NULL CHECK (value >= 0),
      min_subtotal bigint CHECK (min_subtotal >= 0),
      starts_at timestamptz NOT NULL DEFAULT now(),
      ends_at timestamptz,
      usage_limit integer CHECK (usage_limit > 0),
      usage_count integer NOT NULL DEFAULT 0 CHECK (usage_count >= 0),
      once_per_customer boolean NOT NULL DEFAULT false,
      active boolean NOT NULL DEFAULT true,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT discounts_percentage_value_check CHECK (type <> 'percentage' OR value BETWEEN 1 AND 10000),
      CONSTRAINT discounts_window_check CHECK (ends_at IS NULL OR ends_at > starts_at)
    )`.execute(db);
  await sql`CREATE UNIQUE INDEX discounts_store_code_key ON discounts (store_id, lower(code)) WHERE code IS NOT NULL`.execute(
    db,
  );
  await sql`CREATE INDEX discounts_store_created_idx ON discounts (store_id, created_at DESC, id DESC)`.execute(
    db,
  );
  await sql`CREATE INDEX discounts_store_automatic_idx ON discounts (store_id, created_at, id) WHERE code IS NULL AND active`.execute(
    db,
  );

  // No foreign key to products or categories: a deleted product stays listed and simply matches
  // nothing, so a discount limited to it never widens to the whole cart.
  for (const [table, column] of [
    ['discount_products', 'product_id'],
    ['discount_categories', 'category_id'],
  ] as const) {
    await sql`
      CREATE TABLE ${sql.table(table)} (
        store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
        discount_id uuid NOT NULL REFERENCES discounts (id) ON DELETE CASCADE,
        ${sql.ref(column)} uuid NOT NULL,
        PRIMARY KEY (discount_id, ${sql.ref(column)})
      )`.execute(db);
  }

  // order_id has no foreign key: the orders table belongs to a later migration.
  await sql`
    CREATE TABLE discount_redemptions (
      id uuid PRIMARY KEY,
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      discount_id uuid NOT NULL REFERENCES discounts (id) ON DELETE CASCADE,
      customer_id uuid REFERENCES customers (id) ON DELETE SET NULL,
      order_id uuid NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE INDEX discount_redemptions_customer_idx ON discount_redemptions (discount_id, customer_id)`.execute(
    db,
  );
  await sql`CREATE INDEX discount_redemptions_order_idx ON discount_redemptions (store_id, order_id)`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['discount_redemptions', 'discount_categories', 'discount_products', 'discounts']) {
    await sql`DROP TABLE IF EXISTS ${sql.table(table)}`.execute(db);
  }
}
