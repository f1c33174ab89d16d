import { type Kysely, sql } from 'kysely';

/**
 * Contract §12: shipping zones and rates, tax regions, and what orders and carts keep of them.
 * A country stands in at most one zone of a store: `shipping_zone_countries` holds one row per
 * (store, country), so two zones claiming one country at once collide on its primary key and one of
 * them gets 409, with no lock or re-read (`*` is the rest of the world, at most one per store the
 * same way). Tax rates are kept in thousandths of a percent (`7.25` → 7250): the contract allows
 * three decimals, which basis points cannot hold. Everything new has a default that keeps an
 * existing store priced exactly as before (no zone: the flat rate; no tax region: `tax_rate_bps`).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE stores
      ADD COLUMN contact_email text,
      ADD COLUMN prices_include_tax boolean NOT NULL DEFAULT false`.execute(db);
  await sql`
    ALTER TABLE products
      ADD COLUMN weight_grams integer NOT NULL DEFAULT 0 CHECK (weight_grams >= 0),
      ADD COLUMN taxable boolean NOT NULL DEFAULT true`.execute(db);
  // null: the variant weighs what its product weighs.
  await sql`ALTER TABLE product_variants ADD COLUMN weight_grams integer CHECK (weight_grams >= 0)`.execute(
    db,
  );

  await sql`
    CREATE TABLE shipping_zones (
      id uuid PRIMARY KEY,
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      name text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT shipping_zones_tenant_key UNIQUE (store_id, id)
    )`.execute(db);
  await sql`
    CREATE TABLE shipping_zone_countries (
      store_id uuid NOT NULL,
      country text NOT NULL CHECK (country ~ '^([A-Z]{2}|\\*)$'),
      zone_id uuid NOT NULL,
      position integer NOT NULL DEFAULT 0,
      PRIMARY KEY (store_id, country),
      CONSTRAINT shipping_zone_countries_zone_id_tenant_fkey FOREIGN KEY (store_id, zone_id)
        REFERENCES shipping_zones (store_id, id) ON DELETE CASCADE
    )`.execute(db);
  await sql`CREATE INDEX shipping_zone_countries_zone_idx ON shipping_zone_countries (store_id, zone_id)`.execute(
    db,
  );
  await sql`
    CREATE TABLE shipping_rates (
      id uuid PRIMARY KEY,
      store_id uuid NOT NULL,
      zone_id uuid NOT NULL,
      position integer NOT NULL DEFAULT 0,
      name text NOT NULL,
      price bigint NOT NULL CHECK (price >= 0),
      min_subtotal bigint CHECK (min_subtotal >= 0),
      max_subtotal bigint CHECK (max_subtotal >= 0),
      min_weight_grams integer CHECK (min_weight_grams >= 0),
      max_weight_grams integer CHECK (max_weight_grams >= 0),
      free_above bigint CHECK (free_above >= 0),
      delivery_days_min integer CHECK (delivery_days_min >= 0),
      delivery_days_max integer CHECK (delivery_days_max >= 0),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT shipping_rates_zone_id_tenant_fkey FOREIGN KEY (store_id, zone_id)
        REFERENCES shipping_zones (store_id, id) ON DELETE CASCADE,
      CONSTRAINT shipping_rates_tenant_key UNIQUE (store_id, id)
    )`.execute(db);
  await sql`CREATE INDEX shipping_rates_zone_idx ON shipping_rates (store_id, zone_id, position)`.execute(db);

  await sql`
    CREATE TABLE tax_regions (
      id uuid PRIMARY KEY,
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      country text NOT NULL CHECK (country ~ '^[A-Z]{2}$'),
      region text CHECK (region ~ '^[A-Z]{2}-[A-Z0-9]{1,3}$'),
      name text NOT NULL,
      rate_millipercent integer NOT NULL CHECK (rate_millipercent BETWEEN 0 AND 100000),
      shipping_taxable boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT tax_regions_tenant_key UNIQUE (store_id, id)
    )`.execute(db);
  // Unique per country and region, the whole country (region null) counting as one region.
  await sql`CREATE UNIQUE INDEX tax_regions_place_key ON tax_regions (store_id, country, (coalesce(region, '')))`.execute(
    db,
  );

  // The rate chosen for a cart (null: the cheapest option for its address).
  await sql`ALTER TABLE carts ADD COLUMN shipping_rate_id uuid`.execute(db);
  // What an order keeps: the method by name (a rate may be renamed or deleted later), the tax lines
  // as charged (`[{ name, rate, amount, country, region }]`, the place kept for tax_by_region and
  // for edits), whether the prices contained the tax, and each line's tax.
  await sql`
    ALTER TABLE orders
      ADD COLUMN shipping_rate_id uuid,
      ADD COLUMN shipping_method_name text,
      ADD COLUMN tax_lines jsonb NOT NULL DEFAULT '[]',
      ADD COLUMN taxes_included boolean NOT NULL DEFAULT false`.execute(db);
  await sql`ALTER TABLE order_line_items ADD COLUMN tax_amount bigint NOT NULL DEFAULT 0 CHECK (tax_amount >= 0)`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE order_line_items DROP COLUMN tax_amount`.execute(db);
  await sql`
    ALTER TABLE orders
      DROP COLUMN shipping_rate_id, DROP COLUMN shipping_method_name, DROP COLUMN tax_lines,
      DROP COLUMN taxes_included`.execute(db);
  await sql`ALTER TABLE carts DROP COLUMN shipping_rate_id`.execute(db);
  await sql`DROP TABLE tax_regions`.execute(db);
  await sql`DROP TABLE shipping_rates`.execute(db);
  await sql`DROP TABLE shipping_zone_countries`.execute(db);
  await sql`DROP TABLE shipping_zones`.execute(db);
  await sql`ALTER TABLE product_variants DROP COLUMN weight_grams`.execute(db);
  await sql`ALTER TABLE products DROP COLUMN weight_grams, DROP COLUMN taxable`.execute(db);
  await sql`ALTER TABLE stores DROP COLUMN contact_email, DROP COLUMN prices_include_tax`.execute(db);
}
