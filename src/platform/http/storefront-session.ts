import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type CustomerAuthOptions, clearedSessionCookie, customerSessionOf } from './customer-auth.js';
import { AppError } from './errors.js';

/**
 * No credential needed; a customer session (cookie or Bearer) is optional and, when sent, makes the
 * request that customer's: a wrong token is 401 (429 past the failure limit), a cross-site cookie 403.
 */
export const OPTIONAL_CUSTOMER_SESSION: Record<string, string[]>[] = [
  {},
  { customerSession: [] },
  { customerBearer: [] },
];

/** The signed-in customer of the request, when its session belongs to the request's store. */
export const customerOf = (request: FastifyRequest) =>
  request.ctx.actor.kind === 'customer' ? request.ctx.actor.id : undefined;

export interface StorefrontSessionOptions {
  /** The active store of a slug, or a not_found error. */
  storeIdOfSlug(slug: string): Promise<string>;
  customerAuth: CustomerAuthOptions;
  secureCookies: boolean;
}

/**
 * Routes under /api/storefront/{slug} that take an optional customer session (checkout, carts): the
 * store of the slug is the tenant of the request (and of its Idempotency-Key), and a session of that
 * store makes its customer the actor.
 */
export function attachStorefrontSession(app: FastifyInstance, options: StorefrontSessionOptions) {
  app.addHook('preValidation', async (request, reply) => {
    const { slug } = request.params as { slug: string };
    const storeId = await options.storeIdOfSlug(slug);
    const found = await customerSessionOf(request, options.customerAuth).catch((error: unknown) => {
      // A dead session in the cookie is cleared with the 401, so the shopper's next try is a
      // guest's instead of the same 401 again.
      const bearer = /^Bearer\s+\S+$/i.test(request.headers.authorization ?? '');
      if (error instanceof AppError && error.statusCode === 401 && !bearer)
        reply.header('set-cookie', clearedSessionCookie(options.secureCookies));
      throw error;
    });
    // A session of another store is not attached: every store's shop shares one origin and so one
    // cookie, and a shopper signed in elsewhere may still buy here as a guest.
    const customerId = found?.session.storeId === storeId ? found.session.customerId : undefined;
    request.ctx = {
      storeId,
      actor: customerId ? { kind: 'customer', id: customerId } : { kind: 'system', id: 'storefront' },
      source: 'system',
      scopes: [],
    };
  });
}
