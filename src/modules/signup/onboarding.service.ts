import type { Db } from '../../platform/db/database.js';
import { notFound } from '../../platform/http/errors.js';
import * as repo from './onboarding.repository.js';

export const ONBOARDING_ITEMS = ['add_product', 'set_up_shipping', 'connect_payments', 'view_shop'] as const;
export type OnboardingItem = (typeof ONBOARDING_ITEMS)[number];

/**
 * The dashboard's first-steps checklist. Every item but view_shop is derived from the store's data
 * on each read, so it ticks itself off (and back on, should the merchant delete their only product).
 */
export function createOnboardingService(deps: { db: Db }) {
  return {
    async checklist(storeId: string) {
      const facts = await repo.onboardingFacts(deps.db, storeId);
      if (!facts) throw notFound('store');
      const done: Record<OnboardingItem, boolean> = {
        add_product: Boolean(facts.has_product),
        set_up_shipping: Boolean(facts.has_zone),
        connect_payments: Boolean(facts.has_payments),
        view_shop: facts.shop_viewed_at !== null,
      };
      const items = ONBOARDING_ITEMS.map((key) => ({ key, done: done[key] }));
      return { items, done: items.every((i) => i.done) };
    },

    markShopViewed: (storeId: string) => repo.markShopViewed(deps.db, storeId),
  };
}

export type OnboardingService = ReturnType<typeof createOnboardingService>;
