import type { FastifyRequest } from 'fastify';
import type { ShopAssets } from './assets.js';

/** What every page of one store's shop is drawn with: the store's face and where its pages live. */
export interface ShopStore {
  id: string;
  slug: string;
  name: string;
  currency: string;
  logo: string | null;
  colors: { primary: string; secondary: string; accent: string; background: string; text: string };
}

export interface ShopContext {
  store: ShopStore;
  /** The path every link of the shop starts with: `/shop/{slug}`, or '' on the store's own domain. */
  base: string;
  /** The origin of relative media URLs made absolute: PUBLIC_URL's, or `{scheme}://{custom domain}`. */
  origin: string;
  /**
   * The absolute URL of the shop's root, for canonical, Open Graph, JSON-LD, sitemap and robots URLs:
   * `{scheme}://{custom domain}` or `PUBLIC_URL/shop/{slug}`, from configuration, never a header.
   */
  home: string;
  assets: ShopAssets;
  /** Production mode (the test card is offered in development only). */
  production: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set on every request of the shop's routes (shop.routes.ts) before its handler runs. */
    shop?: ShopContext;
  }
}

/** The shop of a request inside the shop's routes, where the resolving hook always sets it. */
export function shopOf(request: FastifyRequest): ShopContext {
  if (!request.shop) throw new Error('shopOf() called outside the shop routes');
  return request.shop;
}

/** A shop path (`/products/x`) as the link it is on this request's address of the shop. */
export function shopHref(shop: ShopContext, path: string): string {
  return `${shop.base}${path}`;
}

/** The absolute URL of a shop path: canonical links, Open Graph, the sitemap. */
export function shopUrl(shop: ShopContext, path: string): string {
  return `${shop.home}${path}`;
}
