import type { Logger } from 'pino';
import type { Db } from '../../platform/db/database.js';
import { inTransaction } from '../../platform/db/transaction.js';
import type { RequestContext } from '../../platform/http/context.js';
import { type IfMatch, nextVersionTime, requireMatch } from '../../platform/http/etag.js';
import type { OrdersService } from '../orders/index.js';
import type { StoresService } from '../stores/index.js';
import * as repo from './payments.repository.js';
import {
  manualProvider,
  PAYMENT_METHODS,
  type PaymentMethod,
  type PaymentProvider,
  testCardProvider,
} from './providers.js';
import {
  createStripeAccounts,
  type StripeAccounts,
  type StripeKeys,
  type StripeSettings,
} from './stripe-account.js';
import type { StripeApiOptions } from './stripe-client.js';
import { createStripeEvents } from './stripe-events.js';
import { createStripeProvider, type StripeProviderDeps } from './stripe-provider.js';

export interface PaymentsDeps {
  db: Db;
  stores: Pick<StoresService, 'getStore' | 'getActiveStoreBySlug'>;
  orders: StripeProviderDeps['orders'] & Pick<OrdersService, 'recordProviderRefunds'>;
  /** The Stripe accounts (shared with the refund gateway the orders service was built with). */
  accounts?: StripeAccounts;
  /** Seals the Stripe secrets at rest. */
  appSecret: string;
  /** PUBLIC_URL: the webhook URL the merchant gives Stripe. */
  publicUrl: string;
  stripe: StripeApiOptions;
  holdMinutes: number;
  logger: Logger;
}

/** What a storefront may offer its buyers (GET /api/storefront/{slug}/config). */
export interface StorefrontPayments {
  methods: PaymentMethod[];
  stripePublishableKey?: string;
}

/**
 * The payments module: the providers checkout takes money with (manual, test_card, stripe), a
 * store's Stripe account, and Stripe's events. Orders change only through the orders service.
 */
export function createPaymentsService(deps: PaymentsDeps) {
  const { db } = deps;
  const accounts = deps.accounts ?? createStripeAccounts({ appSecret: deps.appSecret, api: deps.stripe });
  const providers: Record<PaymentMethod, PaymentProvider> = {
    manual: manualProvider,
    test_card: testCardProvider,
    stripe: createStripeProvider({
      db,
      accounts,
      orders: deps.orders,
      holdMinutes: deps.holdMinutes,
      logger: deps.logger,
    }),
  };
  const events = createStripeEvents({ db, accounts, orders: deps.orders, logger: deps.logger });
  const webhookUrl = async (storeId: string) => {
    const store = await deps.stores.getStore(storeId);
    return `${deps.publicUrl}/api/payments/stripe/${store.slug}/webhook`;
  };

  return {
    accounts,
    provider: (method: PaymentMethod): PaymentProvider => providers[method],

    async storefrontPayments(storeId: string): Promise<StorefrontPayments> {
      const account = await accounts.find(db, storeId);
      const stripe = account?.enabled === true;
      return {
        methods: PAYMENT_METHODS.filter((m) => m !== 'stripe' || stripe),
        ...(stripe && account ? { stripePublishableKey: account.publishableKey } : {}),
      };
    },

    async stripeSettings(ctx: RequestContext): Promise<StripeSettings> {
      return accounts.settings(db, ctx.storeId, await webhookUrl(ctx.storeId));
    },

    /** The version of the Stripe settings, for their ETag (http/etag.ts). */
    async stripeVersion(ctx: RequestContext) {
      return stripeVersionOf(ctx.storeId, await repo.findAccount(db, ctx.storeId));
    },

    async connectStripe(ctx: RequestContext, keys: StripeKeys, ifMatch?: IfMatch): Promise<StripeSettings> {
      await inTransaction(db, async (tx) => {
        const version = stripeVersionOf(ctx.storeId, await repo.lockAccount(tx, ctx.storeId));
        requireMatch(ifMatch, version);
        await accounts.save(tx, ctx.storeId, keys, nextVersionTime(version.updated_at));
      });
      deps.logger.info({ storeId: ctx.storeId }, 'Stripe connected');
      return this.stripeSettings(ctx);
    },

    async disconnectStripe(ctx: RequestContext): Promise<void> {
      await accounts.disable(db, ctx.storeId);
      deps.logger.info({ storeId: ctx.storeId }, 'Stripe disconnected');
    },

    /** A Stripe event for the store of `slug` (404 for an unknown store). */
    async receiveStripeEvent(slug: string, payload: string, signature: string | undefined) {
      const store = await deps.stores.getActiveStoreBySlug(slug);
      return events.receive(store.id, payload, signature);
    },
  };
}

/** Named by the store (one Stripe account each); a store never connected has version 0. */
function stripeVersionOf(storeId: string, account: { updated_at: Date } | undefined) {
  return { id: storeId, updated_at: account?.updated_at ?? new Date(0) };
}

export type PaymentsService = ReturnType<typeof createPaymentsService>;
