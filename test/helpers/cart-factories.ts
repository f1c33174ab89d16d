import type { Client } from './catalog-factories.js';

type Answer = Awaited<ReturnType<Client['get']>>;

/**
 * The storefront's cart endpoints of one store, over a client (with or without a session). `seen`,
 * when given, collects "METHOD /path/template STATUS" of every answer, so a test can hold the
 * statuses the endpoints really answered against those the OpenAPI document lists.
 */
export function cartsOf(shop: Client, slug: string, seen?: Set<string>) {
  const base = `/api/storefront/${slug}/carts`;
  const template = '/api/storefront/{slug}/carts';
  const record = async (operation: string, answer: Promise<Answer>) => {
    const res = await answer;
    seen?.add(`${operation} ${res.statusCode}`);
    return res;
  };
  return {
    base,
    create: (body: unknown = {}, headers?: Record<string, string>) =>
      record(`post ${template}`, shop.post(base, body, headers)),
    get: (id: string, headers?: Record<string, string>) =>
      record(`get ${template}/{cartId}`, shop.get(`${base}/${id}`, headers)),
    addItem: (id: string, body: unknown, headers?: Record<string, string>) =>
      record(`post ${template}/{cartId}/items`, shop.post(`${base}/${id}/items`, body, headers)),
    setQuantity: (id: string, itemId: string, quantity: number) =>
      record(
        `patch ${template}/{cartId}/items/{itemId}`,
        shop.patch(`${base}/${id}/items/${itemId}`, { quantity }),
      ),
    removeItem: (id: string, itemId: string) =>
      record(`delete ${template}/{cartId}/items/{itemId}`, shop.del(`${base}/${id}/items/${itemId}`)),
    update: (id: string, body: unknown) =>
      record(`patch ${template}/{cartId}`, shop.patch(`${base}/${id}`, body)),
    complete: (id: string, body: unknown = { paymentMethod: 'manual' }, headers?: Record<string, string>) =>
      record(`post ${template}/{cartId}/complete`, shop.post(`${base}/${id}/complete`, body, headers)),
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
