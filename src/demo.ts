import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { App } from './app.js';
import type { Config } from './config.js';
import type { Db } from './platform/db/database.js';
import type { RequestContext } from './platform/http/context.js';
import { SCOPES } from './platform/http/scopes.js';
import { currencyDecimals } from './platform/money.js';
import { seedRegions } from './seed/sample-regions.js';
import { buyersFor, seedStore } from './seed/seed.js';

/** The demo's order history: enough for the overview's charts on a first look, fast to import. */
export const DEMO_ORDERS = 300;
export const DEMO_DAYS = 90;
/** The demo catalogue: a few products of every sample category. */
export const DEMO_PRODUCTS = 24;

/**
 * First start in embedded mode with an empty database: a `demo` store with sample data (catalogue,
 * customers and DEMO_ORDERS orders over the last DEMO_DAYS days), shipping zones and tax regions
 * (its home country, the EU with VAT, the rest of the world: src/seed/sample-regions.ts, so a
 * newcomer sees options and VAT at checkout), an admin user and an all-scopes
 * API key, printed once to the terminal (never to the structured log). The shop comes first in that
 * block: it is what a person opens.
 */
export async function createDemoStoreOnFirstStart(
  app: App,
  db: Db,
  config: Config,
  logger: Logger,
): Promise<void> {
  const { services } = app;
  if ((await services.stores.countStores()) > 0) return;
  const store = await services.stores.createStore({ slug: 'demo', name: 'Demo Store', currency: 'USD' });
  const password = randomBytes(12).toString('base64url');
  const email = 'admin@demo.local';
  await services.stores.createAdminUser({ email, password, storeSlug: 'demo' });
  const key = await services.stores.createApiKey(store.id, { name: 'Demo key (all scopes)', scopes: 'all' });

  await seedStore(
    services,
    app.mediaStorage,
    {
      storeSlug: store.slug,
      products: DEMO_PRODUCTS,
      customers: buyersFor(DEMO_ORDERS),
      orders: DEMO_ORDERS,
      days: DEMO_DAYS,
    },
    db,
  );
  // Through the regions service, as the API creates them (its rules, and its cache told).
  const ctx: RequestContext = {
    storeId: store.id,
    actor: { kind: 'system', id: 'seed' },
    source: 'system',
    scopes: [...SCOPES],
  };
  await seedRegions(services.regions, ctx, {
    currency: store.currency,
    decimals: currencyDecimals(store.currency),
  });
  logger.info({ store: store.slug }, 'demo store created on first start');
  process.stdout.write(
    [
      '',
      '  Emporium created a demo store on first start (shown once, keep it):',
      `    shop:     ${config.publicUrl}/shop/${store.slug}/`,
      `    admin:    ${config.publicUrl}/admin`,
      `    login:    ${email} / ${password}`,
      `    API key:  ${key.key}`,
      `    try:      curl -H "X-API-Key: ${key.key}" ${config.publicUrl}/api/v1/customers`,
      `    docs:     ${config.publicUrl}/docs`,
      '',
      '',
    ].join('\n'),
  );
}
