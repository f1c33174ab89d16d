import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';

/**
 * Security headers on every response (through @fastify/helmet): `X-Content-Type-Options: nosniff`,
 * a CSP that allows nothing, no framing, no referrer, same-origin resource and opener policies, and HSTS
 * when PUBLIC_URL is https. Every response without a cache policy of its own is `Cache-Control:
 * no-store`: API answers carry tokens, keys and personal data that no shared or browser cache may
 * keep. Routes that may be cached say so themselves (the storefront catalogue: public, max-age=30;
 * media and the dashboard's hashed assets: a year; /admin's index.html: no-cache).
 */
export function installSecurityHeaders(server: FastifyInstance, options: { https: boolean }): void {
  server.register(helmet, {
    global: true,
    // JSON and media are never rendered as pages: they may load nothing and be framed by nobody. HTML
    // pages set their own, as strict as they can be (/admin in admin.static.ts, /docs in app.ts).
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'none'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
        formAction: ["'none'"],
      },
    },
    // A year, this host only: the parent domain's other hosts are not ours to commit to https.
    strictTransportSecurity: options.https ? { maxAge: 31_536_000, includeSubDomains: false } : false,
    referrerPolicy: { policy: 'no-referrer' },
    xFrameOptions: { action: 'deny' },
    // Media files say cross-origin themselves (media.routes.ts): storefronts elsewhere embed them.
    crossOriginResourcePolicy: { policy: 'same-origin' },
    crossOriginOpenerPolicy: { policy: 'same-origin' },
  });
  server.addHook('onSend', async (_request, reply, payload) => {
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    return payload;
  });
}
