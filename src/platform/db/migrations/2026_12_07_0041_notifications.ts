import { type Kysely, sql } from 'kysely';

/**
 * Contract §13: e-mail to buyers and merchants. `notifications` is both the queue the worker claims
 * from (SKIP LOCKED + a lease, as push notifications) and the log merchants read. A message is
 * queued in the transaction of the change that causes it; it is rendered by the worker, outside any
 * transaction, from `refs` (the fulfillment, refund, product… it is about) and the store's template.
 * `dedupe_key` makes a cause send once however often it is replayed (a retried checkout, a cart
 * completed twice, a replayed Stripe event): `INSERT … ON CONFLICT DO NOTHING` on it. Resends and
 * test sends have none.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE notifications (
      id uuid PRIMARY KEY,
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      kind text NOT NULL CHECK (kind IN ('order_confirmation', 'shipping_confirmation', 'order_cancelled',
        'refund_issued', 'back_in_stock', 'new_order', 'low_stock')),
      to_email text NOT NULL,
      order_id uuid,
      refs jsonb NOT NULL DEFAULT '{}',
      dedupe_key text,
      resend_of uuid,
      test boolean NOT NULL DEFAULT false,
      subject text,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed')),
      attempts integer NOT NULL DEFAULT 0,
      last_error text,
      next_attempt_at timestamptz NOT NULL DEFAULT now(),
      locked_until timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      sent_at timestamptz,
      CONSTRAINT notifications_tenant_key UNIQUE (store_id, id),
      CONSTRAINT notifications_order_id_tenant_fkey FOREIGN KEY (store_id, order_id)
        REFERENCES orders (store_id, id) ON DELETE CASCADE
    )`.execute(db);
  // The log's newest-first pages read `notifications_tenant_key` (store_id, id) backwards: no index of its own.
  await sql`CREATE UNIQUE INDEX notifications_dedupe_idx ON notifications (store_id, dedupe_key) WHERE dedupe_key IS NOT NULL`.execute(
    db,
  );
  await sql`CREATE INDEX notifications_due_idx ON notifications (next_attempt_at) WHERE status = 'pending'`.execute(
    db,
  );
  await sql`CREATE INDEX notifications_order_idx ON notifications (store_id, order_id, id DESC) WHERE order_id IS NOT NULL`.execute(
    db,
  );

  // One row per customised kind; no row: the default template, enabled.
  await sql`
    CREATE TABLE notification_templates (
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      kind text NOT NULL CHECK (kind IN ('order_confirmation', 'shipping_confirmation', 'order_cancelled',
        'refund_issued', 'back_in_stock', 'new_order', 'low_stock')),
      enabled boolean NOT NULL DEFAULT true,
      subject text,
      html text,
      text text,
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (store_id, kind)
    )`.execute(db);

  // One subscription per e-mail and product or variant; it ends when its e-mail is queued.
  await sql`
    CREATE TABLE back_in_stock_subscriptions (
      id uuid PRIMARY KEY,
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      product_id uuid NOT NULL,
      variant_id uuid,
      email text NOT NULL,
      customer_id uuid,
      created_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT back_in_stock_subscriptions_product_id_tenant_fkey FOREIGN KEY (store_id, product_id)
        REFERENCES products (store_id, id) ON DELETE CASCADE,
      CONSTRAINT back_in_stock_subscriptions_variant_id_tenant_fkey FOREIGN KEY (store_id, variant_id)
        REFERENCES product_variants (store_id, id) ON DELETE CASCADE,
      CONSTRAINT back_in_stock_subscriptions_customer_id_tenant_fkey FOREIGN KEY (store_id, customer_id)
        REFERENCES customers (store_id, id) ON DELETE CASCADE
    )`.execute(db);
  await sql`
    CREATE UNIQUE INDEX back_in_stock_subscriptions_once_idx ON back_in_stock_subscriptions
      (store_id, product_id, coalesce(variant_id, '00000000-0000-0000-0000-000000000000'::uuid), lower(email))`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['back_in_stock_subscriptions', 'notification_templates', 'notifications']) {
    await sql`DROP TABLE IF EXISTS ${sql.table(table)}`.execute(db);
  }
}
