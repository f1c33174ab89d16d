import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Webhook signatures. Two schemes over the same secret, so receivers can use either:
 * - `X-Webhook-Signature: sha256=<hex>`: HMAC-SHA256 of the raw body, keyed with the whole secret
 *   string as given at creation (`whsec_…`), as the specification describes;
 * - Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64>`): HMAC-SHA256
 *   of `id.timestamp.body`, keyed with the base64-decoded part after `whsec_`, as that standard's
 *   libraries expect.
 */

export const SECRET_PREFIX = 'whsec_';

export function generateSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

export function bodySignature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

export function standardSignature(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

export interface SignedHeaders {
  'content-type': string;
  'user-agent': string;
  'x-webhook-signature': string;
  'x-webhook-id': string;
  'x-webhook-event': string;
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
  'x-webhook-test'?: string;
}

/** Every header of one delivery attempt. `id` is the delivery's: the same on every retry. */
export function signedHeaders(input: {
  secret: string;
  deliveryId: string;
  event: string;
  body: string;
  now: Date;
  test?: boolean;
}): SignedHeaders {
  const timestamp = Math.floor(input.now.getTime() / 1000);
  return {
    'content-type': 'application/json',
    'user-agent': 'Emporium-Webhooks/1',
    'x-webhook-signature': bodySignature(input.secret, input.body),
    'x-webhook-id': input.deliveryId,
    'x-webhook-event': input.event,
    'webhook-id': input.deliveryId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': standardSignature(input.secret, input.deliveryId, timestamp, input.body),
    ...(input.test ? { 'x-webhook-test': 'true' } : {}),
  };
}

/** Constant-time comparison of two signature strings. */
export function sameSignature(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
