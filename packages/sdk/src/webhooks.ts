/**
 * Verifying Emporium's webhook deliveries with Web Crypto only (browsers, Node 20+, Deno, workers).
 * A delivery carries two signatures over the same secret:
 * - Standard Webhooks: `webhook-id`, `webhook-timestamp` (Unix seconds of the attempt) and
 *   `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, keyed with the base64-decoded
 *   part of the secret after `whsec_`; the timestamp bounds replays.
 * - `X-Webhook-Signature: sha256=<hex HMAC-SHA256 of the body>`, keyed with the whole secret string.
 * When the Standard Webhooks headers are present they are checked (with the timestamp tolerance);
 * a delivery with only `X-Webhook-Signature` is checked against that (it has no timestamp).
 */

export type WebhookHeaders =
  | Headers
  | Record<string, string | string[] | undefined>
  | Iterable<[string, string]>;

export interface VerifyWebhookOptions {
  /** How far the `webhook-timestamp` may be from now, in seconds (default 300). */
  toleranceSeconds?: number;
  /** The current time (for tests). */
  now?: Date;
}

export interface VerifiedWebhook<T = unknown> {
  /** The delivery id: the same on every retry of one delivery. De-duplicate on it. */
  id: string;
  /** The event name (`order.paid`, …). */
  event: string;
  /** The parsed body: `{ event, timestamp, data }`. */
  payload: { event: string; timestamp: string; data: T; test?: boolean };
  /** A test send from the dashboard or `POST /webhooks/{id}/test`. */
  test: boolean;
  /** Which signature was checked. */
  scheme: 'standard-webhooks' | 'x-webhook-signature';
}

export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

const SECRET_PREFIX = 'whsec_';
const encoder = new TextEncoder();

/**
 * Verifies a delivery and returns its parsed payload, or throws WebhookVerificationError. Pass the
 * RAW body (the exact bytes received, before any JSON parsing) and the request's headers.
 */
export async function verifyWebhook<T = unknown>(
  rawBody: string | Uint8Array | ArrayBuffer,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyWebhookOptions = {},
): Promise<VerifiedWebhook<T>> {
  const body = typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody);
  const header = headerReader(headers);
  const id = header('webhook-id') ?? header('x-webhook-id');
  const timestamp = header('webhook-timestamp');
  const standard = header('webhook-signature');
  const simple = header('x-webhook-signature');
  if (!id) throw new WebhookVerificationError('missing webhook-id');

  let scheme: VerifiedWebhook['scheme'];
  if (standard !== undefined || timestamp !== undefined) {
    if (standard === undefined || timestamp === undefined)
      throw new WebhookVerificationError('webhook-signature and webhook-timestamp go together');
    if (!/^\d{1,12}$/.test(timestamp)) throw new WebhookVerificationError('bad webhook-timestamp');
    const seconds = Number(timestamp);
    const now = (options.now ?? new Date()).getTime() / 1000;
    if (Math.abs(now - seconds) > (options.toleranceSeconds ?? 300))
      throw new WebhookVerificationError('webhook-timestamp outside the tolerance (a replay?)');
    const key = await hmacKey(
      base64Decode(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret),
    );
    const signed = encoder.encode(`${id}.${timestamp}.${body}`);
    let matches = false;
    for (const part of standard.split(' ')) {
      if (!part.startsWith('v1,')) continue;
      const signature = safeBase64Decode(part.slice(3));
      if (signature && (await crypto.subtle.verify('HMAC', key, signature, signed))) matches = true;
    }
    if (!matches) throw new WebhookVerificationError('webhook-signature does not match');
    scheme = 'standard-webhooks';
  } else if (simple !== undefined) {
    const hex = /^sha256=([0-9a-f]{64})$/i.exec(simple.trim())?.[1];
    if (!hex) throw new WebhookVerificationError('bad X-Webhook-Signature');
    const key = await hmacKey(encoder.encode(secret));
    if (!(await crypto.subtle.verify('HMAC', key, hexDecode(hex), encoder.encode(body))))
      throw new WebhookVerificationError('X-Webhook-Signature does not match');
    scheme = 'x-webhook-signature';
  } else {
    throw new WebhookVerificationError('no signature header');
  }

  let payload: VerifiedWebhook<T>['payload'];
  try {
    payload = JSON.parse(body);
  } catch {
    throw new WebhookVerificationError('the body is not JSON');
  }
  return {
    id,
    event: header('x-webhook-event') ?? payload.event,
    payload,
    test: header('x-webhook-test') === 'true',
    scheme,
  };
}

function headerReader(headers: WebhookHeaders): (name: string) => string | undefined {
  if (typeof (headers as Headers).get === 'function') {
    const h = headers as Headers;
    return (name) => h.get(name) ?? undefined;
  }
  const map = new Map<string, string>();
  const entries =
    Symbol.iterator in headers
      ? (headers as Iterable<[string, string]>)
      : Object.entries(headers as Record<string, string | string[] | undefined>);
  for (const [name, value] of entries) {
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined) map.set(name.toLowerCase(), first);
  }
  return (name) => map.get(name);
}

type Bytes = Uint8Array<ArrayBuffer>;

function hmacKey(raw: Bytes) {
  return crypto.subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
}

function base64Decode(text: string): Bytes {
  const binary = atob(text);
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

function safeBase64Decode(text: string): Bytes | undefined {
  try {
    return base64Decode(text);
  } catch {
    return undefined;
  }
}

function hexDecode(hex: string): Bytes {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}
