// Verifies an Emporium webhook delivery. Dependency-free (node:crypto only): copy this file into
// your receiver, or import it. Pass the RAW request body (the exact bytes, before any JSON parsing).
//
//   import { verifyWebhook } from './verify-webhook.mjs';
//   const result = verifyWebhook({ secret: process.env.EMPORIUM_WEBHOOK_SECRET, headers: req.headers, body: rawBody });
//   if (!result.ok) return res.status(400).end(result.reason);
//   // de-duplicate on result.id (stable across retries of the same delivery), then handle JSON.parse(rawBody)

import { createHmac, timingSafeEqual } from 'node:crypto';

const PREFIX = 'whsec_';

function safeEqual(a, b) {
  const left = Buffer.from(String(a));
  const right = Buffer.from(String(b));
  return left.length === right.length && timingSafeEqual(left, right);
}

function header(headers, name) {
  if (typeof headers?.get === 'function') return headers.get(name) ?? undefined; // fetch Headers
  const value = headers?.[name] ?? headers?.[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * @param {{ secret: string, headers: Record<string, string | string[] | undefined> | Headers,
 *           body: string | Buffer, toleranceSeconds?: number, now?: Date }} input
 * @returns {{ ok: true, id: string, event: string | undefined, test: boolean } | { ok: false, reason: string }}
 */
export function verifyWebhook({ secret, headers, body, toleranceSeconds = 300, now = new Date() }) {
  const raw = typeof body === 'string' ? body : Buffer.from(body).toString('utf8');
  const id = header(headers, 'webhook-id') ?? header(headers, 'x-webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const standard = header(headers, 'webhook-signature');
  const simple = header(headers, 'x-webhook-signature');
  if (!id) return { ok: false, reason: 'missing webhook-id' };

  if (standard && timestamp) {
    // Standard Webhooks: HMAC-SHA256 of "id.timestamp.body" with the base64 part of the secret;
    // the timestamp bounds replays.
    const seconds = Number(timestamp);
    if (!Number.isInteger(seconds)) return { ok: false, reason: 'bad webhook-timestamp' };
    if (Math.abs(now.getTime() / 1000 - seconds) > toleranceSeconds)
      return { ok: false, reason: 'timestamp outside the tolerance (replay?)' };
    const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
    const expected = createHmac('sha256', key).update(`${id}.${seconds}.${raw}`).digest('base64');
    const matches = standard
      .split(' ')
      .some((part) => part.startsWith('v1,') && safeEqual(part.slice(3), expected));
    if (!matches) return { ok: false, reason: 'webhook-signature does not match' };
  } else if (simple) {
    // X-Webhook-Signature: sha256=<hex HMAC-SHA256 of the body, keyed with the whole secret string>.
    const expected = `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;
    if (!safeEqual(simple, expected)) return { ok: false, reason: 'X-Webhook-Signature does not match' };
  } else {
    return { ok: false, reason: 'no signature header' };
  }
  return {
    ok: true,
    id,
    event: header(headers, 'x-webhook-event'),
    test: header(headers, 'x-webhook-test') === 'true',
  };
}
