import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CartsService } from '../modules/carts/index.js';
import type { RequestContext } from '../platform/http/context.js';
import { readCookie } from '../platform/http/cookies.js';
import { isNotFound } from './forms.js';
import { shopCustomerOf } from './session.js';
import { type ShopContext, shopOf } from './shop-context.js';
import type { ShopDeps } from './shop-deps.js';

/** The shopper's open cart: its id (an unguessable token, contract §9) is the whole permission. */
export const CART_COOKIE = 'emporium_cart';
/**
 * The cart that just became an order: it proves the order is this browser's, so the confirmation
 * and payment pages show it (docs/decisions.md, "Shop order confirmation").
 */
export const RECEIPT_COOKIE = 'emporium_receipt';

/** Carts live 30 days after their last change; the cookie is renewed with every change. */
const CART_MAX_AGE_S = 30 * 24 * 3600;
/** Long enough to come back from Stripe's pages or reload the confirmation the next day. */
const RECEIPT_MAX_AGE_S = 7 * 24 * 3600;

export type CartView = Awaited<ReturnType<CartsService['get']>>;

/** Who is shopping on this request: the service context, and the signed-in customer of this store. */
export interface Shopper {
  ctx: RequestContext;
  customerId?: string;
}

export async function shopperOf(
  request: FastifyRequest,
  reply: FastifyReply,
  shop: ShopContext,
  deps: ShopDeps,
): Promise<Shopper> {
  const customer = await shopCustomerOf(request, reply, shop.store.id, deps);
  const customerId = customer?.customerId;
  return {
    customerId,
    ctx: {
      storeId: shop.store.id,
      actor: customerId ? { kind: 'customer', id: customerId } : { kind: 'system', id: 'shop' },
      source: 'system',
      scopes: [],
    },
  };
}

/**
 * A cookie of one shop only: `Path=/shop/{slug}/` (or `/` on a store's own domain), so every store's
 * shop on one host has its own cart. HttpOnly (no script reads it), SameSite=Lax (sent when the
 * shopper comes back from another site, such as Stripe's, never on another site's form posts).
 */
function shopCookie(shop: ShopContext, name: string, value: string, maxAge: number, secure: boolean) {
  return `${name}=${value}; Path=${shop.base}/; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${secure ? '; Secure' : ''}`;
}

function appendCookie(reply: FastifyReply, cookie: string) {
  const existing = reply.getHeader('set-cookie');
  const list = existing === undefined ? [] : Array.isArray(existing) ? existing : [String(existing)];
  reply.header('set-cookie', [...list, cookie]);
}

export function setCartCookie(reply: FastifyReply, shop: ShopContext, cartId: string, secure: boolean) {
  appendCookie(reply, shopCookie(shop, CART_COOKIE, cartId, CART_MAX_AGE_S, secure));
}

export function clearCartCookie(reply: FastifyReply, shop: ShopContext, secure: boolean) {
  appendCookie(reply, shopCookie(shop, CART_COOKIE, '', 0, secure));
}

export function setReceiptCookie(reply: FastifyReply, shop: ShopContext, cartId: string, secure: boolean) {
  appendCookie(reply, shopCookie(shop, RECEIPT_COOKIE, cartId, RECEIPT_MAX_AGE_S, secure));
}

/**
 * A cart id of a cookie, or undefined: ids are 32 base64url characters, so a value of any other shape
 * (a NUL byte, unicode, kilobytes) is no cart of ours and never reaches the database.
 */
function cartIdCookie(request: FastifyRequest, name: string): string | undefined {
  const value = readCookie(request.headers.cookie, name);
  return value && /^[A-Za-z0-9_-]{1,100}$/.test(value) ? value : undefined;
}

export const receiptOf = (request: FastifyRequest) => cartIdCookie(request, RECEIPT_COOKIE);

/**
 * The shopper's open cart, or undefined: the one of the cookie (a cart of another store, an expired
 * or a completed one counts as none, and the cookie is cleared), else the signed-in customer's latest
 * open cart (a phone and a laptop share it, as GET /api/customer/cart does), which the cookie then
 * names. Reading a cart with a session links it to the customer, as the carts API does.
 */
export async function currentCart(
  request: FastifyRequest,
  reply: FastifyReply,
  shop: ShopContext,
  deps: ShopDeps,
  shopper: Shopper,
): Promise<CartView | undefined> {
  const id = cartIdCookie(request, CART_COOKIE);
  const view = id
    ? await deps.carts.get(shopper.ctx, id, shopper.customerId).catch((error: unknown) => {
        if (isNotFound(error)) return undefined;
        throw error;
      })
    : undefined;
  if (view?.cart.status === 'open') return view;
  // A cookie naming no open cart of this store (another store's, completed, garbage) is cleared.
  if (readCookie(request.headers.cookie, CART_COOKIE) !== undefined)
    clearCartCookie(reply, shop, deps.secureCookies);
  if (!shopper.customerId) return undefined;
  const latest = await deps.carts.latestOf(shopper.ctx, shopper.customerId).catch((error: unknown) => {
    if (isNotFound(error)) return undefined;
    throw error;
  });
  if (latest) setCartCookie(reply, shop, latest.cart.id, deps.secureCookies);
  return latest;
}

/** The shop, the shopper and their open cart (if any) of a request. */
export async function cartOfRequest(request: FastifyRequest, reply: FastifyReply, deps: ShopDeps) {
  const shop = shopOf(request);
  const shopper = await shopperOf(request, reply, shop, deps);
  const view = await currentCart(request, reply, shop, deps, shopper);
  return { shop, shopper, view };
}
