import { hostOfHeader } from '../modules/stores/index.js';

/**
 * A store's own domain serves its shop at `/`: a request whose Host is that domain is routed as
 * `/shop/{slug}{path}`, before Fastify picks a route (the server's `rewriteUrl`). The API, media,
 * the shop's built files and the operations endpoints keep their own paths on every host, so the
 * shop's scripts can call the storefront API and load its assets on the custom domain too.
 */
const KEPT_PATHS =
  /^\/(?:api|media|shop-assets|admin|docs)(?:[/?]|$)|^\/(?:openapi\.json|healthz|readyz|metrics)(?:\?|$)/;

/**
 * The URL to route for a request: `/shop/{slug}…` when its host is a store's custom domain and the
 * path is the shop's, else the URL as sent.
 */
export function routedUrl(
  url: string,
  host: string | undefined,
  slugOfDomain: (host: string) => string | undefined,
) {
  const name = hostOfHeader(host);
  if (!name) return url;
  const slug = slugOfDomain(name);
  if (!slug || KEPT_PATHS.test(url)) return url;
  return `/shop/${encodeURIComponent(slug)}${url.startsWith('/') ? url : `/${url}`}`;
}
