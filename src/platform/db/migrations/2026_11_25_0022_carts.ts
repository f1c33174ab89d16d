import { type Kysely, sql } from 'kysely';

/**
 * Contract §9: server-side carts. A cart's id is a random token (holding it is the permission), so
 * it is text, and unique per store: every lookup is by (store_id, id). Every link to another tenant
 * table is a composite foreign key through (store_id, …) as migration 0020 made the rule: a cart of
 * one store can never name another store's customer, order, product or variant. A line goes with its
 * product or variant; a cart goes with its customer (it holds their e-mail and address) or its order.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // The parent key of cart_items' variant link (orders and inventory only reference variants).
  await sql`ALTER TABLE product_variants ADD CONSTRAINT product_variants_tenant_key UNIQUE (store_id, id)`.execute(
    db,
  );
  await sql`
    CREATE TABLE carts (
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      id text NOT NULL CHECK (length(id) BETWEEN 22 AND 64),
      status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'completed')),
      customer_id uuid,
      email text,
      shipping_address jsonb,
      coupon_code text,
      order_id uuid,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      completed_at timestamptz,
      PRIMARY KEY (store_id, id),
      CONSTRAINT carts_customer_id_tenant_fkey FOREIGN KEY (store_id, customer_id)
        REFERENCES customers (store_id, id) ON DELETE CASCADE,
      CONSTRAINT carts_order_id_tenant_fkey FOREIGN KEY (store_id, order_id)
        REFERENCES orders (store_id, id) ON DELETE CASCADE,
      CONSTRAINT carts_completed_check CHECK ((status = 'completed') = (order_id IS NOT NULL))
    )`.execute(db);
  // GET /api/customer/cart: the customer's latest open cart.
  await sql`CREATE INDEX carts_customer_idx ON carts (store_id, customer_id, updated_at DESC)
    WHERE customer_id IS NOT NULL AND status = 'open'`.execute(db);
  await sql`CREATE INDEX carts_order_idx ON carts (store_id, order_id) WHERE order_id IS NOT NULL`.execute(
    db,
  );
  // The worker's expiry: carts untouched for 30 days, found by this index rather than a scan.
  await sql`CREATE INDEX carts_updated_idx ON carts (updated_at)`.execute(db);

  await sql`
    CREATE TABLE cart_items (
      id uuid PRIMARY KEY,
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      cart_id text NOT NULL,
      product_id uuid NOT NULL,
      variant_id uuid,
      quantity integer NOT NULL CHECK (quantity > 0),
      created_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT cart_items_cart_id_tenant_fkey FOREIGN KEY (store_id, cart_id)
        REFERENCES carts (store_id, id) ON DELETE CASCADE,
      CONSTRAINT cart_items_product_id_tenant_fkey FOREIGN KEY (store_id, product_id)
        REFERENCES products (store_id, id) ON DELETE CASCADE,
      CONSTRAINT cart_items_variant_id_tenant_fkey FOREIGN KEY (store_id, variant_id)
        REFERENCES product_variants (store_id, id) ON DELETE CASCADE
    )`.execute(db);
  // One line per product and variant (NULLS NOT DISTINCT needs PostgreSQL 15; 14 is supported).
  await sql`CREATE UNIQUE INDEX cart_items_line_key ON cart_items
    (store_id, cart_id, product_id, COALESCE(variant_id, '00000000-0000-0000-0000-000000000000'))`.execute(
    db,
  );
  // The foreign keys' ON DELETE CASCADE finds the lines of a product or variant through these.
  await sql`CREATE INDEX cart_items_product_idx ON cart_items (store_id, product_id)`.execute(db);
  await sql`CREATE INDEX cart_items_variant_idx ON cart_items (store_id, variant_id) WHERE variant_id IS NOT NULL`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS cart_items`.execute(db);
  await sql`DROP TABLE IF EXISTS carts`.execute(db);
  await sql`ALTER TABLE product_variants DROP CONSTRAINT IF EXISTS product_variants_tenant_key`.execute(db);
}
