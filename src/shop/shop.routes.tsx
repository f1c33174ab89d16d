import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { StoreClosedError, storeColors } from '../modules/stores/index.js';
import { installPublicCaching } from '../platform/http/cacheable.js';
import { type AppError, forbidden, notFound, toAppError } from '../platform/http/errors.js';
import { isSameOriginWrite } from '../platform/http/same-origin.js';
import { fileInside } from '../platform/http/static-files.js';
import { webUrlOf } from '../platform/web-url.js';
import { SHOP_ASSETS_DIR } from './assets.js';
import {
  ErrorPage,
  NotFoundPage,
  SHOP_UNAVAILABLE_HTML,
  storeClosedHtml,
  UNKNOWN_STORE_HTML,
} from './pages/not-found.js';
import { sendHtml, sendPage } from './render.js';
import { accountRoutes } from './routes/account.routes.js';
import { accountListRoutes } from './routes/account-lists.routes.js';
import { accountSignInRoutes } from './routes/account-sign-in.routes.js';
import { cartRoutes } from './routes/cart.routes.js';
import { catalogRoutes } from './routes/catalog.routes.js';
import { checkoutRoutes } from './routes/checkout.routes.js';
import { homeRoutes } from './routes/home.routes.js';
import { iconRoutes } from './routes/icon.routes.js';
import { notifyMeRoutes } from './routes/notify-me.routes.js';
import { orderRoutes } from './routes/order.routes.js';
import { seoRoutes } from './routes/seo.routes.js';
import type { ShopContext } from './shop-context.js';
import type { ShopDeps } from './shop-deps.js';

/** Vite names every built file by its content hash: safe to keep for a year. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** Form bodies of the shop are a few fields; nothing legitimate comes near this. */
const FORM_BODY_LIMIT = 64 * 1024;

/** The slug of a shop URL (`/shop/{slug}/…`), as routed (after a custom domain's rewrite). */
function slugOfUrl(url: string): string {
  return decodeURIComponent(url.split('?')[0]?.split('/')[2] ?? '');
}

/**
 * Where a shop's pages are: links on the address the request came to (`/shop/{slug}`, or `/` when
 * routed from the store's own domain by custom-domains.ts), absolute URLs from configuration only —
 * the store's domain on PUBLIC_URL's scheme (a deployment behind TLS serves its domains on it too),
 * else PUBLIC_URL — never from Host or X-Forwarded-Host, which a client writes and a CDN may not key
 * on. A domain cleared a moment ago (the store row is cached a few seconds longer than the routing
 * table, or the other way round) falls back to the platform address.
 */
function shopAddress(
  store: { slug: string; custom_domain: string | null },
  onOwnDomain: boolean,
  publicUrl: string,
): Pick<ShopContext, 'base' | 'origin' | 'home'> {
  const platform = new URL(publicUrl);
  const platformBase = `/shop/${store.slug}`;
  if (onOwnDomain && store.custom_domain) {
    const origin = `${platform.protocol}//${store.custom_domain}`;
    return { base: '', origin, home: origin };
  }
  return {
    base: onOwnDomain ? '' : platformBase,
    origin: platform.origin,
    home: `${platform.origin}${platformBase}`,
  };
}

/** The shop of a request (its store by the slug of its URL: unknown or disabled → 404). */
async function shopContextOf(request: FastifyRequest, deps: ShopDeps): Promise<ShopContext> {
  let slug: string;
  try {
    slug = slugOfUrl(request.url);
  } catch {
    throw notFound('store'); // not valid percent-encoding: names no store
  }
  // Unknown or disabled: not_found; the database away: unavailable (503), never "no such shop".
  const store = await deps.stores.getActiveStoreBySlug(slug);
  return {
    store: {
      id: store.id,
      slug: store.slug,
      name: store.name,
      currency: store.currency,
      // Only a web address is drawn (a value stored before the check on write may be anything).
      logo: webUrlOf(store.logo) ?? null,
      colors: storeColors(store.colors),
    },
    ...shopAddress(store, request.originalUrl !== request.url, deps.publicUrl),
    assets: deps.assets,
    production: deps.production,
  };
}

/**
 * A failure before the store is known: no such shop (404), a suspended store's "closed" page (503),
 * or the store could not be read (5xx).
 */
function sendFramelessError(reply: FastifyReply, error: AppError) {
  if (error.statusCode === 404) return sendHtml(reply, UNKNOWN_STORE_HTML, { status: 404, cache: 'private' });
  if (error instanceof StoreClosedError)
    return sendHtml(reply, storeClosedHtml(error.storeName), { status: 503, cache: 'private' });
  if (error.headers) reply.headers(error.headers);
  return sendHtml(reply, SHOP_UNAVAILABLE_HTML, { status: error.statusCode, cache: 'private' });
}

/** What a refusal of the shop's own says, where the platform's message speaks of the JSON API. */
const SHOP_MESSAGES: Record<number, string> = {
  413: 'This form is far larger than any of the shop’s forms. Open the page and send it again.',
  415: 'The shop reads its own forms only. Open the page and send the form from there.',
};

/**
 * Routing errors of shop URLs (not valid percent-encoding, a path segment longer than any id) come
 * before the shop's hooks: they are answered here with the shop's 404 page, as any unknown page is.
 */
export function shopRoutingErrorPage(deps: ShopDeps) {
  return (_error: unknown, request: FastifyRequest, reply: FastifyReply): boolean => {
    if (!request.url.startsWith('/shop/')) return false;
    shopContextOf(request, deps)
      .then(
        (shop) => sendPage(reply, <NotFoundPage shop={shop} />, { status: 404, cache: 'private' }),
        (error: unknown) => sendFramelessError(reply, toAppError(error)),
      )
      .catch((error: unknown) => {
        request.log.error({ err: error }, 'shop routing error page failed');
        if (!reply.sent) sendHtml(reply, UNKNOWN_STORE_HTML, { status: 404, cache: 'private' });
      });
    return true;
  };
}

/**
 * Resolves the shop of each request (unknown or disabled store: 404), and refuses form posts from
 * other origins: the shop's forms write cookies (cart, session), so a cross-site form must not.
 */
function installShopRequest(shop: FastifyInstance, deps: ShopDeps) {
  shop.addHook('onRequest', async (request: FastifyRequest) => {
    request.shop = await shopContextOf(request, deps);
  });
  shop.addHook('preHandler', async (request) => {
    if (!isSameOriginWrite(request, deps.trustedOrigins, request.shop?.store.id))
      throw forbidden('This form was sent from another site; open the shop and try again.');
  });
  // The shop's forms are urlencoded; a JSON body (the API's) is 415 here, never half-read as a form.
  shop.removeContentTypeParser('application/json');
  shop.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT },
    (_request, body, done) => {
      const fields: Record<string, string> = {};
      for (const [name, value] of new URLSearchParams(body as string)) fields[name] = value;
      done(null, fields);
    },
  );
  shop.setErrorHandler((error, request, reply) => {
    const appError = toAppError(error);
    if (appError.statusCode >= 500 && !(error instanceof StoreClosedError))
      request.log.error({ err: error, code: appError.code }, 'shop page failed');
    if (appError.headers) reply.headers(appError.headers);
    if (!request.shop) return sendFramelessError(reply, appError);
    if (appError.statusCode === 404)
      return sendPage(reply, <NotFoundPage shop={request.shop} />, { status: 404, cache: 'private' });
    const message =
      appError.statusCode >= 500
        ? 'The shop could not answer just now. Please try again in a moment.'
        : (SHOP_MESSAGES[appError.statusCode] ?? appError.message);
    return sendPage(reply, <ErrorPage shop={request.shop} status={appError.statusCode} message={message} />, {
      status: appError.statusCode,
      cache: 'private',
    });
  });
  shop.setNotFoundHandler((request, reply) => {
    if (!request.shop) return sendHtml(reply, UNKNOWN_STORE_HTML, { status: 404, cache: 'private' });
    return sendPage(reply, <NotFoundPage shop={request.shop} />, { status: 404, cache: 'private' });
  });
}

/** The built client files at /shop-assets/ (what the pages' <script> and <link> name). */
async function shopAssetRoutes(app: FastifyInstance) {
  await app.register(fastifyStatic, { root: SHOP_ASSETS_DIR, serve: false, suppressWarning: true });
  app.get('/shop-assets/*', { schema: { hide: true } }, async (request, reply) => {
    const relative = (request.params as { '*': string })['*'];
    const file = relative.startsWith('.') ? undefined : await fileInside(SHOP_ASSETS_DIR, relative);
    if (!file) throw notFound('file');
    return reply
      .header('cache-control', IMMUTABLE)
      .sendFile(file, SHOP_ASSETS_DIR, { cacheControl: false, dotfiles: 'deny' });
  });
}

/**
 * Every store's web shop at /shop/{slug}/ (contract §10): pages rendered on the server with React,
 * read through the same services as the storefront API. Catalogue pages are public and cacheable;
 * the cart, checkout and account are the shopper's own and never cached.
 */
export const shopRoutes: FastifyPluginAsync<ShopDeps> = async (app, deps) => {
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true };
  });
  await app.register(shopAssetRoutes);
  app.get('/shop/:slug', async (request, reply) =>
    reply.redirect(`/shop/${encodeURIComponent((request.params as { slug: string }).slug)}/`, 301),
  );
  await app.register(
    async (shop) => {
      installShopRequest(shop, deps);
      await shop.register(async (open) => {
        installPublicCaching(open);
        await homeRoutes(open, deps);
        await catalogRoutes(open, deps);
        await seoRoutes(open, deps);
        await iconRoutes(open);
      });
      await cartRoutes(shop, deps);
      await notifyMeRoutes(shop, deps);
      await checkoutRoutes(shop, deps);
      await orderRoutes(shop, deps);
      await accountSignInRoutes(shop, deps);
      await accountRoutes(shop, deps);
      await accountListRoutes(shop, deps);
    },
    { prefix: '/shop/:slug' },
  );
};
