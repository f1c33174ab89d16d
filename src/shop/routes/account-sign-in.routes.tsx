import type { FastifyInstance, FastifyReply } from 'fastify';
import { clearedSessionCookie, sessionCookie } from '../../platform/http/customer-auth.js';
import type { AppError } from '../../platform/http/errors.js';
import { attempt, fieldOf, formOf, isEmail, safeReturnPath, shopperMessage } from '../account-forms.js';
import { SignInPage, VerifyPage } from '../pages/account-sign-in.js';
import { sendPage } from '../render.js';
import { shopCustomerOf } from '../session.js';
import { shopHref, shopOf } from '../shop-context.js';
import type { ShopDeps } from '../shop-deps.js';

type Query = { email?: string; return?: string; again?: string };

/** A refusal's status and headers (Retry-After of a rate limit) on the page that shows it. */
function refused(reply: FastifyReply, error: AppError) {
  if (error.headers) reply.headers(error.headers);
  return error.statusCode;
}

/**
 * The one-time-code sign-in (contract §5) as pages: e-mail → code → session cookie, through the
 * same accounts service (and so the same limits and answers) as the storefront API's auth routes.
 */
export async function accountSignInRoutes(app: FastifyInstance, deps: ShopDeps) {
  const afterSignIn = (returnPath: string | undefined) => returnPath ?? '/account';

  app.get('/account/sign-in', async (request, reply) => {
    const shop = shopOf(request);
    const returnPath = safeReturnPath((request.query as Query).return);
    if (await shopCustomerOf(request, reply, shop.store.id, deps))
      return reply.redirect(shopHref(shop, afterSignIn(returnPath)), 303);
    return sendPage(reply, <SignInPage shop={shop} returnPath={returnPath} />, { cache: 'private' });
  });

  // Answers alike whether or not the address has an account (the service never tells either).
  app.post('/account/sign-in', async (request, reply) => {
    const shop = shopOf(request);
    const form = formOf(request);
    const email = fieldOf(form, 'email');
    const returnPath = safeReturnPath(form.return);
    const page = (status: number, error: string) =>
      sendPage(reply, <SignInPage shop={shop} email={email} error={error} returnPath={returnPath} />, {
        status,
        cache: 'private',
      });
    if (!isEmail(email)) return page(400, 'Enter a valid e-mail address, like name@example.com.');
    const store = await deps.stores.getStore(shop.store.id);
    const sent = await attempt(() => deps.accounts.requestCode(store, email, request.ip));
    if (!sent.ok) return page(refused(reply, sent.error), shopperMessage(sent.error));
    const query = new URLSearchParams({
      email,
      ...(returnPath ? { return: returnPath } : {}),
      ...(form.again === '1' ? { again: '1' } : {}),
    });
    return reply.redirect(shopHref(shop, `/account/verify?${query}`), 303);
  });

  app.get('/account/verify', async (request, reply) => {
    const shop = shopOf(request);
    const query = request.query as Query;
    const returnPath = safeReturnPath(query.return);
    const email = typeof query.email === 'string' ? query.email.trim() : undefined;
    if (!isEmail(email)) return reply.redirect(shopHref(shop, '/account/sign-in'), 303);
    return sendPage(
      reply,
      <VerifyPage shop={shop} email={email} returnPath={returnPath} resent={query.again === '1'} />,
      { cache: 'private' },
    );
  });

  app.post('/account/verify', async (request, reply) => {
    const shop = shopOf(request);
    const form = formOf(request);
    const email = fieldOf(form, 'email');
    const code = fieldOf(form, 'code')?.replace(/\s+/g, '');
    const returnPath = safeReturnPath(form.return);
    if (!isEmail(email)) return reply.redirect(shopHref(shop, '/account/sign-in'), 303);
    const page = (status: number, error: string) =>
      sendPage(reply, <VerifyPage shop={shop} email={email} error={error} returnPath={returnPath} />, {
        status,
        cache: 'private',
      });
    if (!code || !/^\d{6}$/.test(code)) return page(400, 'Enter the 6 digits of the code from the e-mail.');
    const store = await deps.stores.getStore(shop.store.id);
    const verified = await attempt(() => deps.accounts.verify(store, email, code, request.ip));
    if (!verified.ok) return page(refused(reply, verified.error), shopperMessage(verified.error));
    const session = verified.value;
    reply.header('set-cookie', sessionCookie(session.token, session.expiresAt, deps.secureCookies));
    return reply.redirect(shopHref(shop, afterSignIn(returnPath)), 303);
  });

  // Ends this store's session only: a session of another store on the same host is not ours to end.
  app.post('/account/sign-out', async (request, reply) => {
    const shop = shopOf(request);
    const customer = await shopCustomerOf(request, reply, shop.store.id, deps);
    if (customer) {
      await deps.accounts.logout(customer.token);
      reply.header('set-cookie', clearedSessionCookie(deps.secureCookies));
    }
    return reply.redirect(shopHref(shop, '/'), 303);
  });
}
