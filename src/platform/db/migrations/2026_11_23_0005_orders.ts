import { type Kysely, sql } from 'kysely';

/** Orders, their line items and fulfilments, per-store order numbers, and customer addresses. */
export async function up(db: Kysely<unknown>): Promise<void> {
  // One row per store: the next order number (from 1001) and so the number of orders, which makes
  // the unfiltered order list's total and its deep pages free of any scan.
  await sql`
    CREATE TABLE order_counters (
      store_id uuid PRIMARY KEY REFERENCES stores (id) ON DELETE CASCADE,
      next_number bigint NOT NULL DEFAULT 1001
    )`.execute(db);

  await sql`
    CREATE TABLE orders (
      id uuid PRIMARY KEY,
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      order_number bigint NOT NULL,
      status text NOT NULL CHECK (status IN ('pending', 'processing', 'on_hold', 'completed', 'cancelled')),
      status_before_hold text,
      payment_status text NOT NULL CHECK (payment_status IN ('unpaid', 'partially_paid', 'paid', 'refund_due')),
      fulfillment_status text NOT NULL CHECK (fulfillment_status IN ('unfulfilled', 'fulfilled')),
      currency char(3) NOT NULL,
      subtotal bigint NOT NULL CHECK (subtotal >= 0),
      discount_amount bigint NOT NULL DEFAULT 0 CHECK (discount_amount >= 0),
      shipping_amount bigint NOT NULL DEFAULT 0 CHECK (shipping_amount >= 0),
      tax_amount bigint NOT NULL DEFAULT 0 CHECK (tax_amount >= 0),
      total bigint NOT NULL CHECK (total >= 0),
      amount_paid bigint NOT NULL DEFAULT 0 CHECK (amount_paid >= 0),
      coupon_code text,
      discount_id uuid,
      payment_method text,
      customer_id uuid REFERENCES customers (id) ON DELETE SET NULL,
      customer_email text NOT NULL,
      customer_first_name text,
      customer_last_name text,
      shipping_address jsonb,
      notes text,
      cancel_reason text,
      cancelled_at timestamptz,
      paid_at timestamptz,
      fulfilled_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT orders_store_number_key UNIQUE (store_id, order_number)
    )`.execute(db);
  await sql`CREATE INDEX orders_store_created_idx ON orders (store_id, created_at DESC, id DESC)`.execute(db);
  await sql`CREATE INDEX orders_store_status_idx ON orders (store_id, status, order_number DESC)`.execute(db);
  await sql`CREATE INDEX orders_store_customer_idx ON orders (store_id, customer_id, order_number DESC)`.execute(
    db,
  );
  await sql`CREATE INDEX orders_store_email_idx ON orders (store_id, lower(customer_email))`.execute(db);

  await sql`
    CREATE TABLE order_line_items (
      id uuid PRIMARY KEY,
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      order_id uuid NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
      product_id uuid,
      variant_id uuid,
      name text NOT NULL,
      variant_title text,
      sku text,
      quantity integer NOT NULL CHECK (quantity > 0),
      price bigint NOT NULL CHECK (price >= 0),
      position integer NOT NULL DEFAULT 0
    )`.execute(db);
  await sql`CREATE INDEX order_line_items_order_idx ON order_line_items (order_id, position)`.execute(db);
  await sql`CREATE INDEX order_line_items_product_idx ON order_line_items (store_id, product_id)`.execute(db);

  await sql`
    CREATE TABLE order_fulfillments (
      id uuid PRIMARY KEY,
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      order_id uuid NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
      carrier text,
      tracking_number text,
      tracking_url text,
      created_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE INDEX order_fulfillments_order_idx ON order_fulfillments (order_id, created_at)`.execute(
    db,
  );

  // Kept by the orders module through the customers service, in the order's own transaction.
  await sql`
    ALTER TABLE customers
      ADD COLUMN orders_count integer NOT NULL DEFAULT 0,
      ADD COLUMN total_spent bigint NOT NULL DEFAULT 0`.execute(db);

  await sql`
    CREATE TABLE customer_addresses (
      id uuid PRIMARY KEY,
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      customer_id uuid NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
      line1 text NOT NULL,
      line2 text,
      city text NOT NULL,
      region text,
      postal_code text NOT NULL,
      country text NOT NULL,
      phone text,
      is_default boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE INDEX customer_addresses_customer_idx ON customer_addresses (store_id, customer_id, created_at)`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'customer_addresses',
    'order_fulfillments',
    'order_line_items',
    'orders',
    'order_counters',
  ]) {
    await sql`DROP TABLE IF EXISTS ${sql.table(table)}`.execute(db);
  }
  await sql`ALTER TABLE customers DROP COLUMN orders_count, DROP COLUMN total_spent`.execute(db);
}
