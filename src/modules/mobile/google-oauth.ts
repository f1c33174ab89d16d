import { sign } from 'node:crypto';
import type { SafeFetch } from '../../platform/net/safe-fetch.js';

/**
 * OAuth 2.0 for Google service accounts (RFC 7523 JWT bearer grant): a JWT signed with the account's
 * RSA key (RS256) is exchanged at its token_uri for a short-lived access token, cached until shortly
 * before it expires. No Google library: node:crypto signs, the given fetch posts.
 */

export const FCM_SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

export interface ServiceAccount {
  clientEmail: string;
  /** PEM (PKCS#8 or PKCS#1) RSA private key. */
  privateKey: string;
  tokenUri: string;
}

const LIFETIME_SECONDS = 3600;

/** The signed assertion: header {alg: RS256, typ: JWT}; claims iss, scope, aud, iat, exp = iat + 1 h. */
export function serviceAccountJwt(
  account: ServiceAccount,
  scope: string,
  issuedAtSeconds: number = Math.floor(Date.now() / 1000),
): string {
  const encode = (part: object) => Buffer.from(JSON.stringify(part)).toString('base64url');
  const header = encode({ alg: 'RS256', typ: 'JWT' });
  const claims = encode({
    iss: account.clientEmail,
    scope,
    aud: account.tokenUri,
    iat: issuedAtSeconds,
    exp: issuedAtSeconds + LIFETIME_SECONDS,
  });
  const signature = sign('sha256', Buffer.from(`${header}.${claims}`), account.privateKey);
  return `${header}.${claims}.${signature.toString('base64url')}`;
}

/** The token endpoint refused or could not be reached; `retry` says whether trying later may help. */
export class AccessTokenError extends Error {
  constructor(
    message: string,
    readonly retry: boolean,
  ) {
    super(message);
    this.name = 'AccessTokenError';
  }
}

export interface AccessTokenSource {
  /** A valid access token: the cached one, or a new one (one exchange at a time). */
  get(): Promise<string>;
  /** Forgets the cached token (the API answered 401). */
  invalidate(): void;
}

function parseJson(body: Buffer): Record<string, unknown> {
  try {
    const parsed = JSON.parse(body.toString('utf8'));
    return typeof parsed === 'object' && parsed !== null ? parsed : {};
  } catch {
    return {};
  }
}

export function createAccessTokenSource(options: {
  account: ServiceAccount;
  scope: string;
  fetch: SafeFetch;
  timeoutMs?: number;
  /** Refresh this long before expiry (at most half the token's lifetime). Default 5 minutes. */
  marginMs?: number;
  now?: () => number;
}): AccessTokenSource {
  const { account, fetch } = options;
  const now = options.now ?? Date.now;
  const marginMs = options.marginMs ?? 300_000;
  let cached: { token: string; refreshAt: number } | undefined;
  let pending: Promise<string> | undefined;

  async function exchange(): Promise<{ token: string; refreshAt: number }> {
    const issuedAt = now();
    const assertion = serviceAccountJwt(account, options.scope, Math.floor(issuedAt / 1000));
    let response: Awaited<ReturnType<SafeFetch>>;
    try {
      response = await fetch(account.tokenUri, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion }).toString(),
        acceptStatus: () => true,
        redirect: 'manual',
        timeoutMs: options.timeoutMs ?? 10_000,
        maxBytes: 64 * 1024,
      });
    } catch (error) {
      throw new AccessTokenError(`access token request failed: ${(error as Error).message}`, true);
    }
    const body = parseJson(response.body);
    if (response.status < 200 || response.status >= 300) {
      const reason = [body.error, body.error_description].filter((v) => typeof v === 'string').join(': ');
      const status = response.status;
      throw new AccessTokenError(
        `the token endpoint answered ${status}${reason ? ` (${reason.slice(0, 300)})` : ''}`,
        status >= 500 || status === 429 || status === 408,
      );
    }
    if (typeof body.access_token !== 'string' || body.access_token === '') {
      throw new AccessTokenError('the token endpoint answered without an access_token', true);
    }
    const expiresIn = Number(body.expires_in);
    const lifetimeMs = (Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn : LIFETIME_SECONDS) * 1000;
    return {
      token: body.access_token,
      refreshAt: issuedAt + lifetimeMs - Math.min(marginMs, lifetimeMs / 2),
    };
  }

  return {
    get() {
      if (cached && now() < cached.refreshAt) return Promise.resolve(cached.token);
      pending ??= exchange()
        .then((fresh) => {
          cached = fresh;
          return fresh.token;
        })
        .finally(() => {
          pending = undefined;
        });
      return pending;
    },
    invalidate() {
      cached = undefined;
    },
  };
}
