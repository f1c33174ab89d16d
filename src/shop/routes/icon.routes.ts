import type { FastifyInstance } from 'fastify';
import { defaultIconSvg } from '../default-icon.js';
import { shopOf } from '../shop-context.js';

/**
 * GET /favicon.ico of a shop (`/shop/{slug}/favicon.ico`, and `/favicon.ico` on the store's own
 * domain), which every page names in `<link rel="icon">`: the store's logo (a redirect to it; the
 * context holds it only when it is an http(s) URL), else a default icon drawn from its name and
 * colour. Browsers ask for an icon on every site; without one each page logged a 404.
 */
export async function iconRoutes(app: FastifyInstance) {
  app.get('/favicon.ico', async (request, reply) => {
    const { store } = shopOf(request);
    if (store.logo) return reply.header('cache-control', 'public, max-age=300').redirect(store.logo, 302);
    return reply.type('image/svg+xml; charset=utf-8').send(defaultIconSvg(store));
  });
}
