import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';

/**
 * The headers helmet sets for `options`, worked out once: helmet's middleware only ever sets the
 * same values, and @fastify/helmet built a new middleware (parsing the CSP again) on every request,
 * about 5% of a cached storefront answer's CPU.
 */
function helmetHeaders(options: HelmetOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader(name: string, value: string | number | readonly string[]) {
      headers[name.toLowerCase()] = String(value);
    },
    removeHeader() {},
  };
  let done = false;
  helmet(options)({} as IncomingMessage, recorder as unknown as ServerResponse, () => {
    done = true;
  });
  if (!done) throw new Error('helmet did not finish synchronously');
  return headers;
}

/**
 * Security headers on every response (helmet's, computed once): `X-Content-Type-Options: nosniff`,
 * a CSP that allows nothing, no framing, no referrer, same-origin resource and opener policies, and HSTS
 * when PUBLIC_URL is https. Every response without a cache policy of its own is `Cache-Control:
 * no-store`: API answers carry tokens, keys and personal data that no shared or browser cache may
 * keep. Routes that may be cached say so themselves (the storefront catalogue: public, max-age=30;
 * media and the dashboard's hashed assets: a year; /admin's index.html: no-cache).
 */
export function installSecurityHeaders(server: FastifyInstance, options: { https: boolean }): void {
  const headers = helmetHeaders({
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
  server.addHook('onRequest', (_request, reply, done) => {
    reply.headers(headers);
    done();
  });
  server.addHook('onSend', async (_request, reply, payload) => {
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    return payload;
  });
}
