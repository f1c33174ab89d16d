import type { Agent } from 'undici';
import {
  type AddressGuardOptions,
  assertAllowedLiteral,
  BlockedAddressError,
  createGuardedLookup,
} from './ssrf-guard.js';

/**
 * Outbound HTTP for everything that calls a URL a user gave us (image downloads, webhooks, push):
 * the SSRF guard on the address actually connected to and on every redirect hop, an overall time
 * limit, a body size limit enforced while streaming, and one typed error.
 */

export type OutboundErrorReason =
  | 'invalid_url'
  | 'blocked_address'
  | 'timeout'
  | 'too_large'
  | 'bad_status'
  | 'bad_content_type'
  | 'too_many_redirects'
  | 'network';

export class OutboundError extends Error {
  constructor(
    readonly reason: OutboundErrorReason,
    /** The URL that failed (the redirect hop, when a redirect failed), without credentials. */
    readonly url: string,
    /** What went wrong, without the URL. */
    readonly detail: string,
    readonly extra: { status?: number; cause?: unknown } = {},
  ) {
    super(`${url}: ${detail}`, extra.cause === undefined ? undefined : { cause: extra.cause });
    this.name = 'OutboundError';
  }

  get status(): number | undefined {
    return this.extra.status;
  }
}

export const DEFAULT_TIMEOUT_MS = 15_000;
export const DEFAULT_MAX_BYTES = 20 * 1024 * 1024;
export const DEFAULT_MAX_REDIRECTS = 5;

export interface OutboundRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer | Uint8Array;
  /** Whole exchange, every hop and the body included. Default 15 s. */
  timeoutMs?: number;
  /** Largest body accepted; checked on Content-Length and while streaming. Default 20 MiB. */
  maxBytes?: number;
  /** `follow` (default, re-checking every hop) or `manual`: a 3xx is returned as the response. */
  redirect?: 'follow' | 'manual';
  maxRedirects?: number;
  /** Which statuses are a success; others are `bad_status`. Default: 2xx. */
  acceptStatus?: (status: number) => boolean;
  /** Receives the media type (lower case, no parameters; '' when absent); false is `bad_content_type`. */
  acceptContentType?: (mediaType: string) => boolean;
  signal?: AbortSignal;
}

export interface OutboundResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  finalUrl: string;
}

export interface SafeFetchOptions extends AddressGuardOptions {
  /** Sent unless the request sets its own. */
  userAgent?: string;
  /**
   * Connections per origin (default 16). A caller with more requests in flight to one origin must
   * raise it: queued requests would spend their time limit waiting without being sent.
   */
  connectionsPerOrigin?: number;
}

export interface SafeFetch {
  (url: string, init?: OutboundRequest): Promise<OutboundResponse>;
  /** Closes the connection pool. */
  close(): Promise<void>;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);
const CROSS_ORIGIN_DROPPED = ['authorization', 'cookie', 'proxy-authorization'];
const BODY_HEADERS = ['content-type', 'content-length', 'content-encoding', 'transfer-encoding'];

/** The URL as it may appear in messages and logs: credentials removed. */
export function displayUrl(url: string | URL): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.href;
  } catch {
    return String(url).slice(0, 2048);
  }
}

function parseHttpUrl(raw: string, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    throw new OutboundError('invalid_url', displayUrl(raw), 'is not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new OutboundError('invalid_url', displayUrl(url), 'only http and https URLs are allowed');
  }
  return url;
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

function findCause<T>(error: unknown, type: new (...args: never[]) => T): T | undefined {
  let current: unknown = error;
  for (let depth = 0; current && depth < 8; depth++) {
    if (current instanceof type) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function networkMessage(error: unknown): string {
  const e = error as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
  const code = e?.code ?? e?.cause?.code;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'the host name could not be resolved';
  if (code === 'ECONNREFUSED') return 'the connection was refused';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'the connection was reset';
  if (typeof code === 'string' && /CERT|TLS|SSL/.test(code)) return 'the TLS handshake failed';
  return `the request failed${code ? ` (${code})` : ''}`;
}

/** Drops a response body without reading it (the connection is closed, not reused). */
function discardBody(body: NodeJS.ReadableStream & { destroy(): void }): void {
  body.on('error', () => undefined);
  body.destroy();
}

/**
 * A fetch function with the SSRF guard. One connection pool per instance: create one per purpose
 * (images, webhooks…) at start and close it at shutdown.
 */
export function createSafeFetch(options: SafeFetchOptions = {}): SafeFetch {
  const guard: AddressGuardOptions = {
    allowPrivateUrls: options.allowPrivateUrls ?? false,
    ...(options.resolve ? { resolve: options.resolve } : {}),
    ...(options.classify ? { classify: options.classify } : {}),
  };
  // undici is loaded on the first request: an API process that never fetches an image or sends a
  // test webhook does not hold it (it is most of a 20 MB difference in resident memory).
  let client: Promise<{ agent: Agent; request: typeof import('undici').request }> | undefined;
  const clientOf = () =>
    (client ??= import('undici').then(({ Agent, request }) => ({
      request,
      agent: new Agent({
        connect: { lookup: createGuardedLookup(guard) },
        keepAliveTimeout: 10_000,
        connections: options.connectionsPerOrigin ?? 16,
      }),
    })));
  const userAgent = options.userAgent ?? 'Emporium/1';

  const safeFetch = async (rawUrl: string, init: OutboundRequest = {}): Promise<OutboundResponse> => {
    const timeoutMs = init.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const maxBytes = init.maxBytes ?? DEFAULT_MAX_BYTES;
    const maxRedirects = init.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
    const acceptStatus = init.acceptStatus ?? ((status: number) => status >= 200 && status < 300);

    let url = parseHttpUrl(rawUrl);
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new Error('timeout'));
    }, timeoutMs);
    const onCallerAbort = () => controller.abort(init.signal?.reason);
    if (init.signal?.aborted) onCallerAbort();
    init.signal?.addEventListener('abort', onCallerAbort, { once: true });

    let method = (init.method ?? 'GET').toUpperCase();
    let body = init.body;
    const headers: Record<string, string> = { 'user-agent': userAgent };
    for (const [name, value] of Object.entries(init.headers ?? {})) headers[name.toLowerCase()] = value;

    try {
      const { agent, request } = await clientOf();
      for (let hop = 0; ; hop++) {
        assertAllowedLiteral(url.hostname, guard);
        const response = await request(url, {
          dispatcher: agent,
          method: method as 'GET',
          headers,
          body: body ?? null,
          signal: controller.signal,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
        });
        const status = response.statusCode;
        const responseHeaders = flattenHeaders(response.headers);

        if (REDIRECTS.has(status) && (init.redirect ?? 'follow') === 'follow') {
          await response.body.dump().catch(() => undefined);
          const location = responseHeaders.location;
          if (!location) {
            throw new OutboundError('bad_status', displayUrl(url), `redirect ${status} without a Location`, {
              status,
            });
          }
          if (hop >= maxRedirects) {
            throw new OutboundError(
              'too_many_redirects',
              displayUrl(url),
              `more than ${maxRedirects} redirects`,
            );
          }
          const next = parseHttpUrl(location, url);
          if (next.origin !== url.origin) for (const name of CROSS_ORIGIN_DROPPED) delete headers[name];
          if (status === 303 || ((status === 301 || status === 302) && method === 'POST')) {
            if (method !== 'HEAD') method = 'GET';
            body = undefined;
            for (const name of BODY_HEADERS) delete headers[name];
          }
          url = next;
          continue;
        }

        if (!acceptStatus(status)) {
          discardBody(response.body);
          throw new OutboundError('bad_status', displayUrl(url), `the server answered ${status}`, { status });
        }
        const mediaType = mediaTypeOf(responseHeaders['content-type']);
        if (init.acceptContentType && !init.acceptContentType(mediaType)) {
          discardBody(response.body);
          throw new OutboundError(
            'bad_content_type',
            displayUrl(url),
            `content type ${mediaType ? `"${mediaType}"` : '(none)'} is not accepted`,
            { status },
          );
        }
        const declared = Number(responseHeaders['content-length']);
        if (method !== 'HEAD' && Number.isFinite(declared) && declared > maxBytes) {
          discardBody(response.body);
          throw new OutboundError(
            'too_large',
            displayUrl(url),
            `the body (${declared} bytes) exceeds the limit of ${maxBytes} bytes`,
            { status },
          );
        }
        const chunks: Buffer[] = [];
        let size = 0;
        for await (const chunk of response.body) {
          size += (chunk as Buffer).length;
          if (size > maxBytes) {
            discardBody(response.body);
            throw new OutboundError(
              'too_large',
              displayUrl(url),
              `the body exceeds the limit of ${maxBytes} bytes`,
              { status },
            );
          }
          chunks.push(chunk as Buffer);
        }
        return { status, headers: responseHeaders, body: Buffer.concat(chunks, size), finalUrl: url.href };
      }
    } catch (error) {
      if (error instanceof OutboundError) throw error;
      const where = displayUrl(url);
      const blocked = findCause(error, BlockedAddressError);
      if (blocked) throw new OutboundError('blocked_address', where, blocked.message, { cause: error });
      const code = (error as { code?: unknown })?.code;
      if (timedOut || (typeof code === 'string' && TIMEOUT_CODES.has(code))) {
        throw new OutboundError('timeout', where, `no complete answer within ${timeoutMs} ms`, {
          cause: error,
        });
      }
      if (init.signal?.aborted)
        throw new OutboundError('network', where, 'the request was cancelled', { cause: error });
      throw new OutboundError('network', where, networkMessage(error), { cause: error });
    } finally {
      clearTimeout(timer);
      init.signal?.removeEventListener('abort', onCallerAbort);
    }
  };

  return Object.assign(safeFetch, {
    close: async () => {
      if (client) await (await client).agent.close();
    },
  });
}
