import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import type { HttpLimits } from '../../config.js';
import { handleClientError, rememberRequestId } from './client-errors.js';
import { installConnectionLimits } from './connection-limits.js';
import { ErrorBody } from './envelopes.js';
import { installStandardErrorResponses } from './error-responses.js';
import { installErrorHandling, invalidRequest, replyWithError, unavailable } from './errors.js';
import { requestIdFor } from './request-id.js';
import { installRequestLog } from './request-log.js';
import { installSecurityHeaders } from './security-headers.js';
import { rememberSerializers, serializersCompiledOnFirstUse } from './serialization.js';
import { unionFreeSerializers } from './serializers.js';
import { installValidation } from './validation.js';

/** The contract's body limit; larger bodies are 413 payload_too_large. */
export const BODY_LIMIT = 1024 * 1024;

/** The defaults of config.ts (REQUEST_TIMEOUT_MS…), for servers built without a Config. */
export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 10_000,
  keepAliveTimeoutMs: 72_000,
  maxConnections: 10_000,
  maxConnectionsPerAddress: 256,
  minRequestBodyRate: 240,
  minRequestBodyRateGraceMs: 5000,
};

export interface HttpServerOptions {
  trustProxy?: boolean;
  limits?: HttpLimits;
  /** PUBLIC_URL is https: send HSTS. */
  https?: boolean;
  /** The URL to route a request by, from its URL and host (a store's own domain serves its shop). */
  rewriteUrl?: (url: string, host: string | undefined) => string;
  /**
   * Answers a routing error (a URL that is not valid percent-encoding, a path parameter longer than
   * any id) with a page of its own, for URLs that are pages rather than API calls (the web shop);
   * false leaves it to the JSON error body.
   */
  routingErrorPage?: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => boolean;
}

/**
 * A Fastify instance with the HTTP conventions every endpoint shares (request ids, JSON-only bodies,
 * strict validation, the one error body, security headers, bounds on slow and numerous clients).
 * app.ts builds on it, and so do the platform's tests, so they exercise exactly the production wiring.
 */
export function createHttpServer(logger: FastifyBaseLogger, options: HttpServerOptions = {}) {
  const limits = options.limits ?? DEFAULT_HTTP_LIMITS;
  // Response bodies: fast-json-stringify without an Ajv call per nullable field (serializers.ts),
  // each route's serializer compiled at its first response (serialization.ts).
  const serializers = serializersCompiledOnFirstUse(unionFreeSerializers());
  const server = Fastify({
    loggerInstance: logger,
    trustProxy: options.trustProxy ?? false,
    genReqId: (request) => rememberRequestId(request, requestIdFor(request)),
    // One line per request instead, from installRequestLog (Fastify's are two, unredacted URLs).
    logController: new Fastify.LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT,
    // A request (headers and body) must arrive within requestTimeout, its headers within
    // headersTimeout (which also closes a connection that never sends a byte), or the client gets 408
    // and the connection is closed. Node checks the timers every connectionsCheckingInterval (30 s by
    // default, which would double a 30 s limit): a tenth of the shorter one, at most 1 s.
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    http: {
      // Node would answer a missing Host with a bare 400 of its own; the hook below answers it instead.
      requireHostHeader: false,
      headersTimeout: limits.headersTimeoutMs,
      connectionsCheckingInterval: Math.max(
        50,
        Math.min(1000, Math.floor(Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs) / 10)),
      ),
    },
    clientErrorHandler: handleClientError,
    // While closing, requests still arriving are answered by our hook below with the contract's 503;
    // Fastify's own fast path would send its body, without a request id.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    ajv: { customOptions: { removeAdditional: false } },
    schemaController: { compilersFactory: { buildSerializer: serializers.buildSerializer } },
    ...(options.rewriteUrl
      ? { rewriteUrl: rewriterOf(options.rewriteUrl, options.trustProxy ?? false) }
      : {}),
    // Errors met while routing (an undecodable URL, an over-long path parameter) skip the hooks and
    // the error handler; without this they would be Fastify's own body, without a request id.
    frameworkErrors: (error, request, reply) => {
      reply.header('x-request-id', request.id);
      if (options.routingErrorPage?.(error, request, reply)) return reply;
      return replyWithError(error, request, reply);
    },
  }).withTypeProvider<TypeBoxTypeProvider>();
  rememberSerializers(server, serializers.compileAll);
  installConnectionLimits(server.server, limits, logger);
  installPlatform(server, options.https ?? false);
  return server;
}

/**
 * The host a request names, decided here only: behind a trusted proxy the last value of
 * X-Forwarded-Host, the one the nearest proxy wrote (a proxy that appends leaves in front whatever
 * the client sent), else Host. Fastify's `request.host` reads the same value, so the store a request
 * is routed to and anything else read from the host agree. Nothing absolute is drawn from it: a
 * store's URLs come from its configured domain or PUBLIC_URL (shop.routes.tsx).
 */
export function requestHost(headers: IncomingHttpHeaders, trustProxy: boolean): string | undefined {
  const forwarded = trustProxy ? headers['x-forwarded-host'] : undefined;
  const last = (Array.isArray(forwarded) ? forwarded.at(-1) : forwarded)?.split(',').at(-1)?.trim();
  return last || headers.host;
}

function rewriterOf(rewrite: NonNullable<HttpServerOptions['rewriteUrl']>, trustProxy: boolean) {
  return (request: IncomingMessage) => rewrite(request.url ?? '/', requestHost(request.headers, trustProxy));
}

function installPlatform(server: FastifyInstance, https: boolean): void {
  let closing = false;
  server.addHook('preClose', async () => {
    closing = true;
  });
  server.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    if (closing) throw unavailable();
    if (request.raw.httpVersion === '1.1' && !request.headers.host) {
      throw invalidRequest('An HTTP/1.1 request must carry a Host header');
    }
  });
  // Only JSON bodies are accepted; anything else is 415 before it is read.
  server.removeContentTypeParser('text/plain');
  installRequestLog(server);
  installValidation(server);
  installErrorHandling(server);
  installSecurityHeaders(server, { https });
  server.addSchema(ErrorBody);
  installStandardErrorResponses(server);
}
