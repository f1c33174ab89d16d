import type { Logger } from 'pino';
import type { SafeFetch } from '../../platform/net/safe-fetch.js';
import { createAccessTokenSource, FCM_SCOPE, type ServiceAccount } from './google-oauth.js';
import type { DevicePlatform } from './mobile.tables.js';

export interface PushMessage {
  token: string;
  platform: DevicePlatform;
  title: string;
  body: string;
  /** Custom key/value pairs for the app; FCM accepts string values only. */
  data: Record<string, string>;
}

export type PushResult =
  | { ok: true }
  | {
      ok: false;
      /** Worth trying again later (network, 429, 5xx). */
      retry: boolean;
      /** The token will never work again: the device is forgotten. */
      invalidToken: boolean;
      error: string;
      /** The provider asked to wait at least this long (Retry-After). */
      retryAfterSeconds?: number;
    };

/** Where the push worker hands a notification to. */
export interface PushProvider {
  readonly name: string;
  send(message: PushMessage): Promise<PushResult>;
  close?(): Promise<void>;
}

/** A device token as it may appear in logs: enough to tell devices apart, not enough to use one. */
export function maskToken(token: string): string {
  if (token.length <= 12) return `…${token.slice(-2)}`;
  return `${token.slice(0, 6)}…${token.slice(-4)}`;
}

/** The default provider (no FCM configured): each notification is written to the log, token masked. */
export function createLogPushProvider(logger: Logger): PushProvider {
  return {
    name: 'log',
    async send(message) {
      logger.info(
        {
          push: {
            device: maskToken(message.token),
            platform: message.platform,
            title: message.title,
            body: message.body,
            data: message.data,
          },
        },
        'push notification (not sent: FCM_SERVICE_ACCOUNT is not configured)',
      );
      return { ok: true };
    },
  };
}

export interface FcmProviderOptions {
  projectId: string;
  /** Base URL, e.g. https://fcm.googleapis.com (no trailing slash). */
  endpoint: string;
  account: ServiceAccount;
  /** Used for the token exchange and the sends; closed with the provider. */
  fetch: SafeFetch;
  timeoutMs?: number;
}

/** FCM HTTP v1: POST {endpoint}/v1/projects/{projectId}/messages:send with an OAuth 2.0 bearer token. */
export function createFcmProvider(options: FcmProviderOptions): PushProvider {
  const { fetch } = options;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const url = `${options.endpoint}/v1/projects/${encodeURIComponent(options.projectId)}/messages:send`;
  const tokens = createAccessTokenSource({ account: options.account, scope: FCM_SCOPE, fetch, timeoutMs });

  return {
    name: 'fcm',
    async send(message) {
      let accessToken: string;
      try {
        accessToken = await tokens.get();
      } catch (error) {
        const retry = (error as { retry?: boolean }).retry ?? true;
        return { ok: false, retry, invalidToken: false, error: (error as Error).message };
      }
      let response: Awaited<ReturnType<SafeFetch>>;
      try {
        response = await fetch(url, {
          method: 'POST',
          headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            message: {
              token: message.token,
              notification: { title: message.title, body: message.body },
              data: message.data,
            },
          }),
          acceptStatus: () => true,
          redirect: 'manual',
          timeoutMs,
          maxBytes: 64 * 1024,
        });
      } catch (error) {
        return { ok: false, retry: true, invalidToken: false, error: (error as Error).message };
      }
      // A rejected access token (revoked, clock skew): the next attempt fetches a new one.
      if (response.status === 401) tokens.invalidate();
      return classifyFcmResponse(
        response.status,
        response.body.toString('utf8'),
        response.headers['retry-after'],
      );
    },
    close: () => fetch.close(),
  };
}

interface FcmErrorBody {
  error?: {
    message?: unknown;
    status?: unknown;
    details?: { '@type'?: unknown; errorCode?: unknown; fieldViolations?: { field?: unknown }[] }[];
  };
}

/**
 * Maps an FCM v1 answer to a result (pure). UNREGISTERED, or INVALID_ARGUMENT about the token, means
 * the token is dead; 401 (a stale access token), 429 and 5xx are retried; any other 4xx fails. A
 * 403 SENDER_ID_MISMATCH is a failure, not a dead token: with a wrong FCM_PROJECT_ID every token
 * would mismatch, and deleting every device would turn a configuration mistake into data loss.
 */
export function classifyFcmResponse(status: number, body: string, retryAfter?: string): PushResult {
  if (status >= 200 && status < 300) return { ok: true };
  let parsed: FcmErrorBody = {};
  try {
    parsed = JSON.parse(body) ?? {};
  } catch {
    // Not JSON (a proxy's error page): the status decides.
  }
  const details = Array.isArray(parsed.error?.details) ? parsed.error.details : [];
  const errorCode = details.find((d) => typeof d?.errorCode === 'string')?.errorCode as string | undefined;
  const statusName = typeof parsed.error?.status === 'string' ? parsed.error.status : undefined;
  const text = typeof parsed.error?.message === 'string' ? parsed.error.message : body.slice(0, 200);
  const code = errorCode ?? statusName;
  const error = `FCM answered ${status}${code ? ` ${code}` : ''}${text ? `: ${text}` : ''}`.slice(0, 500);

  const aboutToken =
    details.some((d) => d?.fieldViolations?.some?.((v) => v?.field === 'message.token')) ||
    /registration token/i.test(text);
  if (errorCode === 'UNREGISTERED' || (status === 400 && code === 'INVALID_ARGUMENT' && aboutToken)) {
    return { ok: false, retry: false, invalidToken: true, error };
  }
  if (status === 401 || status === 408 || status === 429 || status >= 500) {
    const seconds = retryAfterSeconds(retryAfter);
    return {
      ok: false,
      retry: true,
      invalidToken: false,
      error,
      ...(seconds === undefined ? {} : { retryAfterSeconds: seconds }),
    };
  }
  return { ok: false, retry: false, invalidToken: false, error };
}

/** Retry-After as seconds (a delta or an HTTP date); undefined when absent or unreadable. */
function retryAfterSeconds(header: string | undefined, now = Date.now()): number | undefined {
  const value = header?.trim();
  if (!value) return undefined;
  if (/^\d{1,10}$/.test(value)) return Number(value);
  if (!/[A-Za-z]{3}/.test(value)) return undefined;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - now) / 1000);
}
