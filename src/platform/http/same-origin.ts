import type { FastifyRequest } from 'fastify';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];

/**
 * Where cookie-authenticated writes may come from: full origins (scheme, host and port), never the
 * request's own Host header, which a client chooses (and which says nothing about the scheme: a page
 * on http://shop.example must not act on https://shop.example).
 */
export interface TrustedOrigins {
  /** PUBLIC_URL's origin, and its loopback aliases when PUBLIC_URL is a loopback address. */
  readonly publicOrigins: ReadonlySet<string>;
  /**
   * The origins one store adds (its custom domain's): consulted with the store of the session, after
   * PUBLIC_URL's origins, so a page on one store's domain never acts with another store's session.
   * Called on every cookie-authenticated write, so it answers from memory.
   */
  readonly storeOrigins?: (storeId: string) => readonly string[];
}

/** `scheme://host[:port]` with the default port dropped and the host lower-cased, or undefined. */
function normalizedOrigin(value: string): string | undefined {
  try {
    const url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    return url.origin;
  } catch {
    return undefined;
  }
}

/**
 * The trusted origins of a deployment. A loopback PUBLIC_URL (the default, http://localhost:PORT)
 * also trusts the other loopback names on the same scheme and port, so the dashboard works whether
 * the browser was pointed at localhost or 127.0.0.1; only the machine itself can serve those origins.
 */
export function trustedOriginsOf(
  publicUrl: string,
  storeOrigins?: (storeId: string) => readonly string[],
): TrustedOrigins {
  const url = new URL(publicUrl);
  const origins = new Set([url.origin]);
  if (LOOPBACK_HOSTS.includes(url.hostname)) {
    for (const host of LOOPBACK_HOSTS) {
      const alias = new URL(url.origin);
      alias.hostname = host;
      origins.add(alias.origin);
    }
  }
  return { publicOrigins: origins, ...(storeOrigins ? { storeOrigins } : {}) };
}

/** The origin a browser says the request comes from: `Origin`, else the origin of `Referer`. */
export function requestOrigin(request: FastifyRequest): string | undefined {
  const origin = request.headers.origin;
  if (origin && origin !== 'null') return normalizedOrigin(origin);
  const referer = request.headers.referer;
  return referer ? normalizedOrigin(referer) : undefined;
}

function isTrusted(origin: string, trusted: TrustedOrigins, storeId: string | undefined): boolean {
  if (trusted.publicOrigins.has(origin)) return true;
  if (storeId === undefined || !trusted.storeOrigins) return false;
  return trusted.storeOrigins(storeId).some((o) => normalizedOrigin(o) === origin);
}

/**
 * CSRF check for cookie-authenticated requests: a write must name a trusted origin in `Origin` (else
 * `Referer`); one naming neither is refused. Browsers send Origin on every cross-site write and a
 * page cannot forge it, so a form on another site cannot act with the user's cookie. Reads are
 * always allowed.
 */
export function isSameOriginWrite(
  request: FastifyRequest,
  trusted: TrustedOrigins,
  storeId?: string,
): boolean {
  if (SAFE_METHODS.has(request.method)) return true;
  const origin = requestOrigin(request);
  return origin !== undefined && isTrusted(origin, trusted, storeId);
}

/**
 * For requests that carry no session yet (sign-in): refused only when the browser names a foreign
 * origin, so a cross-site form cannot sign the user in to an account of the attacker's (login CSRF);
 * clients that send neither header (scripts, curl) are let through.
 */
export function isForeignOrigin(request: FastifyRequest, trusted: TrustedOrigins): boolean {
  if (request.headers.origin === undefined && request.headers.referer === undefined) return false;
  // `Origin: null` (a sandboxed frame, a privacy redirect) names no trusted origin: refused unless a
  // Referer does.
  const origin = requestOrigin(request);
  return origin === undefined || !isTrusted(origin, trusted, undefined);
}
