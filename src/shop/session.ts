import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  type CustomerAuthOptions,
  clearedSessionCookie,
  customerSessionOf,
} from '../platform/http/customer-auth.js';
import { AppError } from '../platform/http/errors.js';

/**
 * The signed-in customer of this store on a shop request, or undefined. Pages treat a session of
 * another store (every store's shop on one host shares the cookie) as signed out, and a dead cookie
 * as signed out too, clearing it, rather than answering a shopper's page with a 401.
 */
export async function shopCustomerOf(
  request: FastifyRequest,
  reply: FastifyReply,
  storeId: string,
  options: { customerAuth: CustomerAuthOptions; secureCookies: boolean },
): Promise<{ customerId: string; token: string } | undefined> {
  try {
    const found = await customerSessionOf(request, options.customerAuth);
    if (!found || found.session.storeId !== storeId) return undefined;
    return { customerId: found.session.customerId, token: found.token };
  } catch (error) {
    if (error instanceof AppError && error.statusCode === 401) {
      reply.header('set-cookie', clearedSessionCookie(options.secureCookies));
      return undefined;
    }
    throw error;
  }
}
