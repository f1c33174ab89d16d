import type { FastifyReply } from 'fastify';
import type { ReactElement } from 'react';
import { renderToString } from 'react-dom/server';

/**
 * The shop's pages: their own files and Stripe's (Payment Element: script, frames, API) only;
 * images from anywhere (product images may live on any host or S3); inline styles (the store's
 * colours); forms post to this origin only; no framing by other sites.
 */
export const SHOP_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self' https://js.stripe.com",
  "style-src 'self' 'unsafe-inline'",
  'img-src * data:',
  "connect-src 'self' https://api.stripe.com",
  'frame-src https://js.stripe.com https://hooks.stripe.com',
  "frame-ancestors 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "object-src 'none'",
].join('; ');

/** A page as the HTML document sent: React's server renderer, nothing hydrated. */
export function renderDocument(page: ReactElement): string {
  return `<!doctype html>${renderToString(page)}`;
}

export interface SendPageOptions {
  status?: number;
  /**
   * `public`: the same for every visitor (catalogue pages; ETag + max-age=30 like the JSON
   * storefront). `private`: a shopper's own (cart, checkout, account): never stored by any cache.
   */
  cache: 'public' | 'private';
}

/** Sends a rendered document with the shop's headers. */
export function sendHtml(reply: FastifyReply, html: string | Buffer, options: SendPageOptions) {
  reply
    .code(options.status ?? 200)
    .type('text/html; charset=utf-8')
    .header('content-security-policy', SHOP_CONTENT_SECURITY_POLICY)
    .header('referrer-policy', 'strict-origin-when-cross-origin')
    .header('cache-control', options.cache === 'public' ? 'public, max-age=30' : 'private, no-store');
  return reply.send(html);
}

export function sendPage(reply: FastifyReply, page: ReactElement, options: SendPageOptions) {
  return sendHtml(reply, renderDocument(page), options);
}
