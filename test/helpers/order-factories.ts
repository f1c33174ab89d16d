import { randomBytes } from 'node:crypto';
import type { App } from '../../src/app.js';
import type { Client } from './catalog-factories.js';

const unique = () => randomBytes(4).toString('hex');

/** A storefront checkout body for the given items (manual payment unless told). */
export function checkoutBody(
  items: { productId: string; variantId?: string; quantity: number }[],
  extra: Record<string, unknown> = {},
) {
  return {
    email: `buyer.${unique()}@example.com`,
    firstName: 'Ada',
    lastName: 'Lovelace',
    items,
    shippingAddress: { line1: '1 Main St', city: 'Springfield', postalCode: '12345', country: 'US' },
    paymentMethod: 'manual',
    ...extra,
  };
}

/** POST /api/v1/orders; fails the test unless it answers 201. */
export async function createOrder(api: Client, body: Record<string, unknown>) {
  const res = await api.post('/api/v1/orders', {
    customer: { email: `buyer.${unique()}@example.com`, first_name: 'Grace', last_name: 'Hopper' },
    ...body,
  });
  if (res.statusCode !== 201) throw new Error(`order create answered ${res.statusCode}: ${res.body}`);
  return res.json().data;
}

/** Sets a store's shipping and tax settings (minor units, basis points). */
export function setPricing(
  app: App,
  storeId: string,
  settings: { shipping_flat_rate?: number; free_shipping_threshold?: number | null; tax_rate_bps?: number },
) {
  return app.services.stores.updateSettings(storeId, settings);
}
