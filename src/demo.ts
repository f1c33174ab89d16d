import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { App } from './app.js';
import type { Config } from './config.js';
import { seedStore } from './seed/seed.js';

/**
 * First start in embedded mode with an empty database: a `demo` store with sample data, an admin
 * user and an all-scopes API key, printed once to the terminal (never to the structured log).
 */
export async function createDemoStoreOnFirstStart(app: App, config: Config, logger: Logger): Promise<void> {
  const { services } = app;
  if ((await services.stores.countStores()) > 0) return;
  const store = await services.stores.createStore({ slug: 'demo', name: 'Demo Store', currency: 'USD' });
  const password = randomBytes(12).toString('base64url');
  const email = 'admin@demo.local';
  await services.stores.createAdminUser({ email, password, storeSlug: 'demo' });
  const key = await services.stores.createApiKey(store.id, { name: 'Demo key (all scopes)', scopes: 'all' });
  await seedStore(services, app.mediaStorage, { storeSlug: store.slug, products: 24, customers: 25 });
  logger.info({ store: store.slug }, 'demo store created on first start');
  process.stdout.write(
    [
      '',
      '  Emporium created a demo store on first start (shown once, keep it):',
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
