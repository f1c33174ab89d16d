import { randomBytes } from 'node:crypto';
import type { App } from '../../src/app.js';
import type { Db } from '../../src/platform/db/database.js';

/** These suites make well over 100 calls a minute with one key; the rate limit has its own suite. */
export const UNLIMITED = { rateLimitPerMinute: 1_000_000 };

const unique = () => randomBytes(4).toString('hex');

type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/** A small client over `app.server.inject` bound to one API key (or none). */
export function client(app: App, key?: string) {
  const send = (method: Method, url: string, payload?: unknown, headers: Record<string, string> = {}) =>
    app.server.inject({
      method,
      url,
      headers: { ...(key ? { 'x-api-key': key } : {}), ...headers },
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });
  return {
    get: (url: string, headers?: Record<string, string>) => send('GET', url, undefined, headers),
    post: (url: string, payload: unknown, headers?: Record<string, string>) =>
      send('POST', url, payload, headers),
    patch: (url: string, payload: unknown) => send('PATCH', url, payload),
    put: (url: string, payload: unknown, headers?: Record<string, string>) =>
      send('PUT', url, payload, headers),
    del: (url: string) => send('DELETE', url),
  };
}
export type Client = ReturnType<typeof client>;

export interface ProductData {
  id: string;
  name: string;
  slug: string;
  status: string;
  price: string;
  compare_price: string | null;
  sku: string | null;
  inventory: number;
  track_inventory: boolean;
  low_stock_threshold: number | null;
  weight_grams: number;
  taxable: boolean;
  category_ids: string[];
  images: { id: string; url: string; alt: string | null; is_primary: boolean; position: number }[];
  media: { id: string; url: string; media_type: 'video' }[];
  options: { name: string; values: string[] }[];
  variants: {
    id: string;
    title: string;
    sku: string | null;
    price: string;
    compare_price: string | null;
    inventory: number;
    weight_grams: number | null;
    options: Record<string, string>;
  }[];
  created_at: string;
  updated_at: string;
}

/** POST /api/v1/products; fails the test unless it answers 201. */
export async function createProduct(api: Client, body: Record<string, unknown> = {}): Promise<ProductData> {
  const res = await api.post('/api/v1/products', { name: `Product ${unique()}`, price: '10.00', ...body });
  if (res.statusCode !== 201) throw new Error(`product create answered ${res.statusCode}: ${res.body}`);
  return res.json().data;
}

/** POST /api/v1/categories; fails the test unless it answers 201. */
export async function createCategory(api: Client, body: Record<string, unknown> = {}) {
  const res = await api.post('/api/v1/categories', { name: `Category ${unique()}`, ...body });
  if (res.statusCode !== 201) throw new Error(`category create answered ${res.statusCode}: ${res.body}`);
  return res.json().data as {
    id: string;
    name: string;
    slug: string;
    description: string;
    parent_id: string | null;
    position: number;
    product_count: number;
    created_at: string;
    updated_at: string;
  };
}

/** A product with a Size option (S, M, L) and one variant per size. */
export function sizedProduct(
  inventory: { S: number; M: number; L?: number },
  extra: Record<string, unknown> = {},
) {
  return {
    name: `Sized ${unique()}`,
    price: '20.00',
    options: [{ name: 'Size', values: ['S', 'M', 'L'] }],
    variants: [
      { options: { Size: 'S' }, inventory: inventory.S, sku: `S-${unique()}` },
      { options: { Size: 'M' }, inventory: inventory.M, price: '22.50' },
      ...(inventory.L === undefined ? [] : [{ options: { Size: 'L' }, inventory: inventory.L }]),
    ],
    ...extra,
  };
}

/** Outbox events of a store, oldest first. */
export async function eventsOf(db: Db, storeId: string) {
  return db
    .selectFrom('events')
    .select(['name', 'data'])
    .where('store_id', '=', storeId)
    .orderBy('seq')
    .execute();
}
