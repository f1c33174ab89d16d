import type { FastifyRequest } from 'fastify';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function originOf(request: FastifyRequest): string | undefined {
  const origin = request.headers.origin;
  if (origin && origin !== 'null') return origin;
  const referer = request.headers.referer;
  if (!referer) return undefined;
  try {
    return new URL(referer).origin;
  } catch {
    return undefined;
  }
}

/**
 * CSRF check for cookie-authenticated requests: a write must name, in `Origin` (else `Referer`), the
 * origin the server answers on (PUBLIC_URL's, or the request's own Host). Browsers send Origin on
 * every cross-site write and a page cannot forge it, so a form on another site cannot act with the
 * user's cookie. Reads are always allowed.
 */
export function isSameOriginWrite(request: FastifyRequest, publicOrigin: string): boolean {
  if (SAFE_METHODS.has(request.method)) return true;
  const origin = originOf(request);
  if (!origin) return false;
  if (origin === publicOrigin) return true;
  try {
    return new URL(origin).host === request.headers.host;
  } catch {
    return false;
  }
}
