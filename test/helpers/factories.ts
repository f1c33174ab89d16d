import { randomBytes } from 'node:crypto';
import type { App } from '../../src/app.js';
import type { NewCustomer } from '../../src/modules/customers/index.js';

const unique = () => randomBytes(4).toString('hex');

/** A store with an API key of the given scopes (all by default). */
export async function createStoreWithKey(
  app: App,
  options: { slug?: string; scopes?: string[] | 'all' } = {},
) {
  const store = await app.services.stores.createStore({
    slug: options.slug ?? `store-${unique()}`,
    name: 'Test Store',
  });
  const key = await app.services.stores.createApiKey(store.id, { scopes: options.scopes ?? 'all' });
  return { store, key: key.key, keyId: key.id };
}

export async function createCustomers(
  app: App,
  storeId: string,
  count: number,
  base: Partial<NewCustomer> = {},
) {
  const tag = unique();
  return app.services.customers.createMany(
    storeId,
    Array.from({ length: count }, (_, i) => ({
      email: `customer${i}.${tag}@example.com`,
      first_name: `First${i}`,
      last_name: `Last${i}`,
      ...base,
      // Distinct, increasing creation times make the newest-first order deterministic.
      created_at: new Date(Date.UTC(2026, 0, 1) + i * 1000),
    })),
  );
}
