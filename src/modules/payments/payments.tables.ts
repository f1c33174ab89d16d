import type { ColumnType } from 'kysely';
import type { Timestamp } from '../../platform/db/schema.js';

type Maybe<T> = ColumnType<T | null, T | null | undefined, T | null>;

/** A store's Stripe account: the secret key and the webhook secret sealed with APP_SECRET. */
export interface StripeAccountsTable {
  store_id: string;
  enabled: ColumnType<boolean, boolean | undefined, boolean>;
  publishable_key: string;
  secret_key_sealed: string;
  secret_key_last4: string;
  webhook_secret_sealed: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type StripePaymentStatus = 'awaiting' | 'succeeded' | 'cancelled';

/**
 * The payment a Stripe order waits for, written in the order's own transaction (phase a); the
 * PaymentIntent's id is added after commit (phase b), so a row without one is an order whose
 * PaymentIntent call never completed.
 */
export interface StripePaymentsTable {
  store_id: string;
  order_id: string;
  payment_intent_id: Maybe<string>;
  /** Minor units of `currency`. */
  amount: ColumnType<number, number, number>;
  currency: string;
  status: ColumnType<StripePaymentStatus, StripePaymentStatus | undefined, StripePaymentStatus>;
  /** When the hold on the order's stock ends (PAYMENT_HOLD_MINUTES after the order). */
  expires_at: Timestamp;
  /** A worker holding the expiry of this payment until then (the job runner's lease). */
  lease_until: Maybe<Date>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** Stripe events already processed, per store: the row is written with the event's effect. */
export interface StripeEventsTable {
  store_id: string;
  event_id: string;
  type: string;
  received_at: Timestamp;
}

declare module '../../platform/db/schema.js' {
  interface Database {
    stripe_accounts: StripeAccountsTable;
    stripe_payments: StripePaymentsTable;
    stripe_events: StripeEventsTable;
  }
}
