import type { Insertable } from 'kysely';
import type { App } from '../../src/app.js';
import type { ProductsTable } from '../../src/modules/catalog/catalog.tables.js';
import type { Db } from '../../src/platform/db/database.js';
import { newId } from '../../src/platform/ids.js';
import { sampleProduct } from '../../src/seed/sample-catalog.js';
import { addRegions, REGION_ADDRESSES, REGIONS_SHAPE } from './regions-fixture.js';

/**
 * The store and the orders of the mail scenario: a shop with a logo, colours, a contact e-mail, a
 * small catalogue and zones and tax regions (so that each confirmation has lines, shipping, tax
 * lines and an address to render), and orders placed through the storefront checkout, as buyers
 * place them (which queues their confirmations, in the order's transaction).
 */
export const MAIL_STORE = {
  slug: 'bench-mail',
  name: 'Bench Mail & Co.',
  logo: 'https://cdn.bench.example/logo.png',
  colors: { primary: '#0b6e4f', accent: '#f4a259' },
  contactEmail: 'hello@bench-mail.example',
};
const PRODUCTS = 24;

export const MAIL_STORE_SHAPE =
  `${PRODUCTS} products, ${REGIONS_SHAPE}, a logo, two colours and a contact e-mail; ` +
  'orders of 1–3 lines (quantity 1–2) by distinct buyers cycling through ' +
  `${REGION_ADDRESSES.map((a) => ('region' in a ? `${a.country}-${a.region}` : a.country)).join(', ')}, paid by test card`;

export async function createMailStore(app: App, db: Db): Promise<{ id: string; productIds: string[] }> {
  const store = await app.services.stores.createStore({ slug: MAIL_STORE.slug, name: MAIL_STORE.name });
  await app.services.stores.updateSettings(store.id, {
    logo: MAIL_STORE.logo,
    colors: MAIL_STORE.colors,
    contact_email: MAIL_STORE.contactEmail,
  });
  const now = new Date();
  const rows = Array.from({ length: PRODUCTS }, (_, n): Insertable<ProductsTable> => {
    const sample = sampleProduct(n);
    return {
      id: newId(),
      store_id: store.id,
      name: sample.name,
      slug: `mail-${n + 1}`,
      status: 'active',
      price: sample.priceMinor,
      sku: `MAIL-${String(n + 1).padStart(4, '0')}`,
      inventory: 1_000_000,
      track_inventory: true,
      options: '[]',
      created_at: now,
      updated_at: now,
    };
  });
  await db.insertInto('products').values(rows).execute();
  await addRegions(db, store.id);
  return { id: store.id, productIds: rows.map((r) => r.id as string) };
}

/** The checkout body of the n-th order: 1–3 distinct products, quantity 1–2, a buyer of its own. */
export function mailOrderBody(n: number, productIds: string[]): string {
  const lines = 1 + (n % 3);
  return JSON.stringify({
    email: `buyer.${n}@bench.example`,
    firstName: 'Robin',
    lastName: `Buyer ${n}`,
    items: Array.from({ length: lines }, (_, i) => ({
      productId: productIds[(n * 7 + i * 5) % productIds.length],
      quantity: 1 + ((n + i) % 2),
    })),
    shippingAddress: REGION_ADDRESSES[n % REGION_ADDRESSES.length],
    paymentMethod: 'test_card',
    cardToken: 'tok_visa',
  });
}

/**
 * Places `count` orders through `POST /api/storefront/{slug}/checkout` (Fastify's inject: the whole
 * request path but the socket), `concurrency` at a time; every answer must be 201.
 */
export async function placeMailOrders(input: {
  app: App;
  productIds: string[];
  count: number;
  concurrency: number;
  onProgress?: (done: number) => void;
}): Promise<void> {
  let next = 0;
  let done = 0;
  await Promise.all(
    Array.from({ length: input.concurrency }, async () => {
      while (next < input.count) {
        const n = next++;
        const response = await input.app.server.inject({
          method: 'POST',
          url: `/api/storefront/${MAIL_STORE.slug}/checkout`,
          headers: { 'content-type': 'application/json' },
          payload: mailOrderBody(n, input.productIds),
        });
        if (response.statusCode !== 201) {
          throw new Error(`order ${n}: checkout answered ${response.statusCode} ${response.body}`);
        }
        done++;
        if (done % 2000 === 0) input.onProgress?.(done);
      }
    }),
  );
}
