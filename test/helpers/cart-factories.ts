import type { Client } from './catalog-factories.js';

/** The storefront's cart endpoints of one store, over a client (with or without a session). */
export function cartsOf(shop: Client, slug: string) {
  const base = `/api/storefront/${slug}/carts`;
  return {
    base,
    create: (body: unknown = {}, headers?: Record<string, string>) => shop.post(base, body, headers),
    get: (id: string, headers?: Record<string, string>) => shop.get(`${base}/${id}`, headers),
    addItem: (id: string, body: unknown, headers?: Record<string, string>) =>
      shop.post(`${base}/${id}/items`, body, headers),
    setQuantity: (id: string, itemId: string, quantity: number) =>
      shop.patch(`${base}/${id}/items/${itemId}`, { quantity }),
    removeItem: (id: string, itemId: string) => shop.del(`${base}/${id}/items/${itemId}`),
    update: (id: string, body: unknown) => shop.patch(`${base}/${id}`, body),
    complete: (id: string, body: unknown = { paymentMethod: 'manual' }, headers?: Record<string, string>) =>
      shop.post(`${base}/${id}/complete`, body, headers),
  };
}

export const ADDRESS = {
  firstName: 'Ada',
  lastName: 'Lovelace',
  line1: '1 Main St',
  city: 'Springfield',
  postalCode: '12345',
  country: 'us',
};
