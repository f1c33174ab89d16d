import type { Db, Tx } from '../../platform/db/database.js';
import { invalidRequest } from '../../platform/http/errors.js';
import { newId } from '../../platform/ids.js';
import { REQUEST_LIMITS, type RequestLimiter } from '../customer-accounts/index.js';
import * as repo from './back-in-stock.repository.js';
import type { NotifyMeBody } from './notifications.schemas.js';

/** What a sign-up needs of the catalogue: the published product of a slug (else not_found). */
export interface BackInStockCatalog {
  storefrontProduct(
    store: { id: string; currency: string },
    slug: string,
  ): Promise<{ product: { id: string }; variants: { id: string }[] }>;
}

export interface BackInStockDeps {
  db: Db;
  catalog: BackInStockCatalog;
  /** The limiter of one-time-code requests (customer accounts), with the same numbers. */
  limiter: RequestLimiter;
}

/** The limiter's counters of sign-ups (apart from login codes'). */
const PURPOSE = 'notify-me';

export const normaliseEmail = (email: string) => email.trim().toLowerCase();

/**
 * "Email me when it's back" (contract §13): a shopper signs up for a product or one of its variants;
 * the sign-up ends when tracked stock comes back (endSubscriptions, through inventory's restock
 * port). The answer never tells whether the e-mail is a customer's or was signed up already.
 */
export function createBackInStockService(deps: BackInStockDeps) {
  return {
    async subscribe(
      store: { id: string; currency: string },
      productSlug: string,
      input: NotifyMeBody,
      client: { ip: string; customerId?: string },
    ): Promise<void> {
      await deps.limiter.perAddress(PURPOSE, client.ip, REQUEST_LIMITS.requestsPerIp);
      const { product, variants } = await deps.catalog.storefrontProduct(store, productSlug);
      if (input.variantId !== undefined && !variants.some((v) => v.id === input.variantId))
        throw invalidRequest('variantId is not a variant of this product', [
          { field: 'variantId', message: 'not a variant of this product' },
        ]);
      const email = normaliseEmail(input.email);
      await deps.limiter.perEmail(PURPOSE, store.id, email);
      await repo.insertSubscription(deps.db, {
        id: newId(),
        storeId: store.id,
        productId: product.id,
        variantId: input.variantId ?? null,
        email,
        customerId: client.customerId ?? null,
      });
    },
  };
}

export type BackInStockService = ReturnType<typeof createBackInStockService>;

/** Inventory's restock port: ends the sign-ups of what came back, in the stock change's transaction. */
export async function endBackInStockSubscriptions(
  tx: Tx,
  storeId: string,
  restocked: { productId: string; variantId: string | null }[],
): Promise<void> {
  await repo.endSubscriptions(tx, storeId, restocked);
}
