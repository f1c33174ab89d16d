import { type Kysely, sql } from 'kysely';

/**
 * Contract §9: an order paid by a provider that confirms later (Stripe) waits in payment_status
 * `pending`; refunds bring `partially_refunded` and `refunded`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE orders DROP CONSTRAINT orders_payment_status_check`.execute(db);
  await sql`
    ALTER TABLE orders ADD CONSTRAINT orders_payment_status_check CHECK (payment_status IN
      ('unpaid', 'pending', 'partially_paid', 'paid', 'partially_refunded', 'refunded', 'refund_due'))`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE orders DROP CONSTRAINT orders_payment_status_check`.execute(db);
  await sql`
    ALTER TABLE orders ADD CONSTRAINT orders_payment_status_check CHECK (payment_status IN
      ('unpaid', 'partially_paid', 'paid', 'refund_due'))`.execute(db);
}
