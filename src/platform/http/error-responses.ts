import type { FastifyInstance } from 'fastify';

/** The error statuses of the contract a route can answer with, besides 5xx. */
export type ErrorStatus = 400 | 401 | 402 | 403 | 404 | 409 | 412 | 413 | 415 | 429 | 503 | 507;

/** The response description of each status: its code(s) and when (the contract's table). */
const WHEN: Record<ErrorStatus, string> = {
  400: '`invalid_request`: the path, query string or body does not validate (`details` names the fields)',
  401: '`unauthorized`: missing, invalid, revoked or expired credentials',
  402: '`payment_declined`: the payment was declined; nothing was created',
  403: '`forbidden`: the credentials do not allow it (an API key without the scope, a cookie-authenticated write from another origin, a key or session of a suspended store)',
  404: '`not_found`: no such resource in this store (or no such store)',
  409: '`conflict` or `insufficient_stock`: the current state forbids it, or an `Idempotency-Key` was reused with another request',
  412: '`precondition_failed`: `If-Match` names a version the resource no longer has (someone changed it since it was read); read it again (its `ETag`) and reapply the change',
  413: '`payload_too_large`: the body is over 1 MiB',
  415: '`unsupported_media_type`: the body is not `application/json`',
  429: '`rate_limited`: over the limit; retry after `Retry-After` seconds',
  503: '`unavailable`: the database is unreachable or the server is shutting down (retry after `Retry-After` seconds), or the store is suspended (storefront, cart, checkout, customer and mobile APIs; no `Retry-After`)',
  507: '`insufficient_storage`: the media storage is full or not writable; nothing was created or changed (an operator must free space or fix the storage, then the same request can be sent again)',
};

/** Response schemas of the error envelope (`#/components/schemas/ErrorBody`) for these statuses. */
export function errorResponses(
  ...statuses: ErrorStatus[]
): Record<number, { $ref: string; description: string }> {
  return Object.fromEntries(
    statuses.map((status) => [status, { $ref: 'ErrorBody#', description: WHEN[status] }]),
  );
}

/** Methods whose requests Fastify reads a body from: they can be refused for its size or type. */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Documents, on every route, the error answers the platform gives whatever the route does: 400 (a
 * NUL character or an undecodable URL is refused on any route, and anything declared validates),
 * 404 when the path names something (an id, a store slug), 409 when the route honours
 * Idempotency-Key, 413 and 415 when the method carries a body, 503 everywhere. The auth guards add theirs
 * (401/403/429); a route declares only what its own rules add (402, 409, …). Responses a route
 * declares itself are kept as they are.
 */
export function installStandardErrorResponses(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (route.schema?.hide) return;
    const methods = [route.method].flat();
    const standard = errorResponses(
      400,
      ...(/[:*]/.test(route.url) ? [404 as const] : []),
      ...(route.config?.idempotent ? [409 as const] : []),
      ...(methods.some((method) => BODY_METHODS.has(method)) ? [413 as const, 415 as const] : []),
      // Any request can meet a server that is closing, and most a database that is unreachable.
      503,
    );
    route.schema = {
      ...route.schema,
      // Marks the operations honouring Idempotency-Key: openapi-conventions.ts declares the header
      // parameter on them, and packages/sdk sends a key on each call.
      ...(route.config?.idempotent ? { 'x-idempotent': true } : {}),
      response: { ...standard, ...(route.schema?.response as object) },
    } as typeof route.schema;
  });
}
