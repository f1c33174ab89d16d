import { type Kysely, sql } from 'kysely';

/**
 * Contract §9, refunds. A refund belongs to an order of the same store: the composite key
 * `(store_id, order_id) → orders (store_id, id)` holds it to its store (the tenant rule of
 * 2026_11_25_0020), and it goes with its order. `restocked` is what the refund put (or, while
 * `pending`, will put) back into stock, `[{ line_item_id, quantity }]`, kept as the refund's own
 * record: a line edited or removed later does not rewrite the history of what was returned.
 *
 * `orders.amount_refunded` counts succeeded refunds only; a pending refund's amount is reserved by
 * its row (the order's lock serialises the check), so two refunds can never exceed what was paid.
 * A provider's refund id is unique per store and provider: a refund reported twice by its
 * provider is recorded once.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE orders ADD COLUMN amount_refunded bigint NOT NULL DEFAULT 0`.execute(db);
  await sql`
    CREATE TABLE refunds (
      id uuid PRIMARY KEY,
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      order_id uuid NOT NULL,
      amount bigint NOT NULL CHECK (amount > 0),
      reason text,
      status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
      provider text NOT NULL,
      provider_refund_id text,
      failure_reason text,
      restocked jsonb NOT NULL DEFAULT '[]',
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT refunds_order_id_tenant_fkey FOREIGN KEY (store_id, order_id)
        REFERENCES orders (store_id, id) ON DELETE CASCADE
    )`.execute(db);
  await sql`CREATE INDEX refunds_order_idx ON refunds (store_id, order_id, created_at)`.execute(db);
  await sql`CREATE INDEX refunds_created_idx ON refunds (store_id, created_at) WHERE status = 'succeeded'`.execute(
    db,
  );
  await sql`
    CREATE UNIQUE INDEX refunds_provider_refund_idx ON refunds (store_id, provider, provider_refund_id)
    WHERE provider_refund_id IS NOT NULL`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE refunds`.execute(db);
  await sql`ALTER TABLE orders DROP COLUMN amount_refunded`.execute(db);
}
