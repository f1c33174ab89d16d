import type Stripe from 'stripe';
import type { Executor } from '../../platform/db/database.js';
import { invalidRequest } from '../../platform/http/errors.js';
import { openSecret, sealSecret } from '../../platform/secret-box.js';
import * as repo from './payments.repository.js';
import { createStripeClient, type StripeApiOptions } from './stripe-client.js';

/** The keys a merchant connects Stripe with (PUT /api/v1/payments/stripe). */
export interface StripeKeys {
  secret_key: string;
  publishable_key: string;
  webhook_secret: string;
}

/** What GET /api/v1/payments/stripe answers: never a secret. */
export interface StripeSettings {
  enabled: boolean;
  publishable_key: string | null;
  secret_key_last4: string | null;
  webhook_url: string;
}

const SECRET_KEY = /^(sk|rk)_(test|live)_[0-9A-Za-z]{10,240}$/;
const PUBLISHABLE_KEY = /^pk_(test|live)_[0-9A-Za-z]{10,240}$/;
const WEBHOOK_SECRET = /^whsec_[0-9A-Za-z+/=]{10,240}$/;

/** Key shapes as Stripe issues them; a test secret key with a live publishable key is refused too. */
export function checkStripeKeys(keys: StripeKeys): void {
  const details = [
    ...(SECRET_KEY.test(keys.secret_key)
      ? []
      : [{ field: 'secret_key', message: 'must be a Stripe secret key (sk_test_… or sk_live_…)' }]),
    ...(PUBLISHABLE_KEY.test(keys.publishable_key)
      ? []
      : [{ field: 'publishable_key', message: 'must be a Stripe publishable key (pk_test_… or pk_live_…)' }]),
    ...(WEBHOOK_SECRET.test(keys.webhook_secret)
      ? []
      : [{ field: 'webhook_secret', message: "must be a webhook endpoint's signing secret (whsec_…)" }]),
  ];
  if (details.length > 0) throw invalidRequest('These are not Stripe keys', details);
  const mode = (key: string) => key.split('_')[1];
  if (mode(keys.secret_key) !== mode(keys.publishable_key))
    throw invalidRequest('The secret and publishable keys must both be test keys or both live keys', [
      {
        field: 'publishable_key',
        message: `is a ${mode(keys.publishable_key)} key, the secret key a ${mode(keys.secret_key)} key`,
      },
    ]);
}

/** A store's Stripe account, its secrets opened with APP_SECRET. */
export interface StripeAccount {
  storeId: string;
  enabled: boolean;
  publishableKey: string;
  secretKey: string;
  webhookSecret: string;
}

export interface StripeAccounts {
  /** The store's account, enabled or not (in-flight payments still settle after a disconnect). */
  find(executor: Executor, storeId: string): Promise<StripeAccount | undefined>;
  /** A client for the account's secret key. */
  client(account: StripeAccount): Promise<Stripe>;
  /** `version` is the account's new updated_at (its ETag), now unless told. */
  save(executor: Executor, storeId: string, keys: StripeKeys, version?: Date): Promise<void>;
  disable(executor: Executor, storeId: string): Promise<void>;
  settings(executor: Executor, storeId: string, webhookUrl: string): Promise<StripeSettings>;
}

export function createStripeAccounts(deps: { appSecret: string; api: StripeApiOptions }): StripeAccounts {
  const open = (sealed: string) => openSecret(deps.appSecret, sealed);
  return {
    async find(executor, storeId) {
      const row = await repo.findAccount(executor, storeId);
      if (!row) return undefined;
      return {
        storeId,
        enabled: row.enabled,
        publishableKey: row.publishable_key,
        secretKey: open(row.secret_key_sealed),
        webhookSecret: open(row.webhook_secret_sealed),
      };
    },
    client: (account) => createStripeClient(account.secretKey, deps.api),
    async save(executor, storeId, keys, version) {
      checkStripeKeys(keys);
      await repo.upsertAccount(
        executor,
        {
          store_id: storeId,
          publishable_key: keys.publishable_key,
          secret_key_sealed: sealSecret(deps.appSecret, keys.secret_key),
          secret_key_last4: keys.secret_key.slice(-4),
          webhook_secret_sealed: sealSecret(deps.appSecret, keys.webhook_secret),
        },
        version,
      );
    },
    disable: (executor, storeId) => repo.disableAccount(executor, storeId),
    async settings(executor, storeId, webhookUrl) {
      const row = await repo.findAccount(executor, storeId);
      const enabled = row?.enabled === true;
      return {
        enabled,
        publishable_key: enabled ? (row?.publishable_key ?? null) : null,
        secret_key_last4: enabled ? (row?.secret_key_last4 ?? null) : null,
        webhook_url: webhookUrl,
      };
    },
  };
}
