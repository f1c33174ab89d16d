import { OutboundError, type SafeFetch } from '../../platform/net/safe-fetch.js';
import { parseRetryAfter } from './retry.js';
import { signedHeaders } from './signing.js';

/** What one HTTP attempt gave: a status (any), or an error; always a duration. */
export interface SendResult {
  statusCode: number | null;
  responseBody: string | null;
  error: string | null;
  durationMs: number;
  retryAfterSeconds?: number;
}

const RESPONSE_LOG_BYTES = 4096;

/**
 * Posts one delivery: the stored bytes, signed now (the Standard Webhooks timestamp is the time of
 * sending, the body's `timestamp` the time of the event). Redirects are not followed: a webhook URL
 * must answer itself. Never throws.
 */
export async function sendDelivery(
  fetch: SafeFetch,
  input: {
    url: string;
    secret: string;
    deliveryId: string;
    event: string;
    body: string;
    timeoutMs: number;
    test?: boolean;
  },
): Promise<SendResult> {
  const started = performance.now();
  const now = new Date();
  try {
    const response = await fetch(input.url, {
      method: 'POST',
      headers: { ...signedHeaders({ ...input, now }) },
      body: input.body,
      timeoutMs: input.timeoutMs,
      redirect: 'manual',
      maxBytes: 1024 * 1024,
      acceptStatus: () => true,
    });
    return {
      statusCode: response.status,
      responseBody: response.body.subarray(0, RESPONSE_LOG_BYTES).toString('utf8'),
      error: null,
      durationMs: Math.round(performance.now() - started),
      retryAfterSeconds: parseRetryAfter(response.headers['retry-after'], now),
    };
  } catch (error) {
    const message =
      error instanceof OutboundError
        ? `${error.reason}: ${error.detail}`
        : ((error as Error)?.message ?? 'failed');
    return {
      statusCode: error instanceof OutboundError ? (error.status ?? null) : null,
      responseBody: null,
      error: message,
      durationMs: Math.round(performance.now() - started),
    };
  }
}
