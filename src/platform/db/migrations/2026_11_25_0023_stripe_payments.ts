import { type Kysely, sql } from 'kysely';
import type { TenantLink } from './2026_11_25_0020_tenant_foreign_keys.js';

/**
 * Contract §9, Stripe: a store's keys (secrets sealed with APP_SECRET), the payment a Stripe order
 * waits for (written in the order's transaction, so an order whose PaymentIntent was never created
 * is still found and released by the hold expiry), and the Stripe events already processed (one row
 * per event id and store, written in the transaction of the event's effect).
 */

/** The links between tenant tables this migration adds (test/platform/tenant-foreign-keys.test.ts). */
export const STRIPE_TENANT_LINKS: readonly TenantLink[] = [
  { table: 'stripe_payments', column: 'order_id', parent: 'orders', kind: 'cascade' },
];

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE stripe_accounts (
      store_id uuid PRIMARY KEY REFERENCES stores (id) ON DELETE CASCADE,
      enabled boolean NOT NULL DEFAULT true,
      publishable_key text NOT NULL,
      secret_key_sealed text NOT NULL,
      secret_key_last4 text NOT NULL,
      webhook_secret_sealed text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`
    CREATE TABLE stripe_payments (
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      order_id uuid NOT NULL,
      payment_intent_id text,
      amount bigint NOT NULL,
      currency text NOT NULL,
      status text NOT NULL DEFAULT 'awaiting' CHECK (status IN ('awaiting', 'succeeded', 'cancelled')),
      expires_at timestamptz NOT NULL,
      lease_until timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (store_id, order_id),
      CONSTRAINT stripe_payments_order_id_tenant_fkey FOREIGN KEY (store_id, order_id)
        REFERENCES orders (store_id, id) ON DELETE CASCADE
    )`.execute(db);
  await sql`CREATE UNIQUE INDEX stripe_payments_intent ON stripe_payments (store_id, payment_intent_id)
    WHERE payment_intent_id IS NOT NULL`.execute(db);
  await sql`CREATE INDEX stripe_payments_due ON stripe_payments (expires_at) WHERE status = 'awaiting'`.execute(
    db,
  );
  await sql`
    CREATE TABLE stripe_events (
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      event_id text NOT NULL,
      type text NOT NULL,
      received_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (store_id, event_id)
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE stripe_events`.execute(db);
  await sql`DROP TABLE stripe_payments`.execute(db);
  await sql`DROP TABLE stripe_accounts`.execute(db);
}
