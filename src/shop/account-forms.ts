import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../platform/http/errors.js';
import { shopCustomerOf } from './session.js';
import { type ShopContext, shopHref } from './shop-context.js';
import type { ShopDeps } from './shop-deps.js';

/** A form body as the shop's parser gives it (fields as strings), or an empty one. */
export function formOf(request: FastifyRequest): Record<string, string> {
  const body = request.body;
  return body && typeof body === 'object' ? (body as Record<string, string>) : {};
}

/** A field trimmed, or undefined when missing or blank. */
export function fieldOf(form: Record<string, string>, name: string): string | undefined {
  const value = form[name]?.trim();
  return value ? value : undefined;
}

/**
 * A `return` path the sign-in may send the shopper back to: a path inside this shop (`/products/x`,
 * `/account/orders/7`), never another site. Anything else (`//evil.example`, `/\evil`, a scheme, a
 * control character) is dropped, so a link to the sign-in page cannot be made an open redirect.
 * The test is made on the value as normalised, which is the one sent: `/.//evil.example`,
 * `/%2e//evil.example` and `/a/..//evil.example` all become `//evil.example`, another host on a
 * store's own domain (where shop paths have no prefix).
 */
export function safeReturnPath(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length === 0 || value.length > 500) return undefined;
  if (!value.startsWith('/') || value.startsWith('//')) return undefined;
  // Backslashes are slashes to browsers; control characters and spaces have no place in a path.
  if (/[\\\s]/.test(value) || [...value].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f))
    return undefined;
  try {
    const url = new URL(value, 'http://shop.invalid');
    const path = `${url.pathname}${url.search}`;
    if (url.origin !== 'http://shop.invalid' || !path.startsWith('/') || /^\/[/\\]/.test(path))
      return undefined;
    return path;
  } catch {
    return undefined;
  }
}

/** The sign-in page's URL, coming back to `returnPath` (a shop path) once signed in. */
export function signInHref(shop: ShopContext, returnPath?: string): string {
  const back = safeReturnPath(returnPath);
  return shopHref(shop, `/account/sign-in${back ? `?return=${encodeURIComponent(back)}` : ''}`);
}

/**
 * The signed-in customer of this shop, or undefined after answering with a 303 to the sign-in page
 * (which brings the shopper back to `returnPath`). Account pages are never shown signed out.
 */
export async function customerOrSignIn(
  request: FastifyRequest,
  reply: FastifyReply,
  shop: ShopContext,
  deps: ShopDeps,
  returnPath: string,
) {
  const customer = await shopCustomerOf(request, reply, shop.store.id, deps);
  if (!customer) {
    reply.redirect(signInHref(shop, returnPath), 303);
    return undefined;
  }
  return customer;
}

/** What a refused request tells the shopper, for a service error the page answers itself. */
export function shopperMessage(error: AppError): string {
  if (error.statusCode === 429) {
    const seconds = Number(error.headers?.['retry-after'] ?? 900);
    const minutes = Math.max(1, Math.ceil(seconds / 60));
    return `Too many attempts. Please wait ${minutes} minute${minutes === 1 ? '' : 's'} and try again.`;
  }
  return error.message;
}

/** Runs a service call; a 4xx it refuses with becomes `{ error }` for the page to show, others throw. */
export async function attempt<T>(
  call: () => Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; error: AppError }> {
  try {
    return { ok: true, value: await call() };
  } catch (error) {
    if (error instanceof AppError && error.statusCode >= 400 && error.statusCode < 500)
      return { ok: false, error };
    throw error;
  }
}

/** A plausible e-mail address (the service normalises it; the mail server has the last word). */
export function isEmail(value: string | undefined): value is string {
  return value !== undefined && value.length <= 254 && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value);
}

/** Messages shown after a successful form (post/redirect/get): the key travels in `?done=`. */
export const DONE_MESSAGES: Record<string, string> = {
  'signed-in': 'You are signed in.',
  profile: 'Your details were saved.',
  'address-added': 'The address was saved.',
  'address-deleted': 'The address was deleted.',
  'wishlist-added': 'Saved to your wishlist.',
  'wishlist-removed': 'Removed from your wishlist.',
};

export function doneMessage(query: unknown): string | undefined {
  const key = (query as { done?: unknown } | undefined)?.done;
  // Own keys only: `?done=__proto__` names no message (and must not reach the page as an object).
  return typeof key === 'string' && Object.hasOwn(DONE_MESSAGES, key) ? DONE_MESSAGES[key] : undefined;
}
