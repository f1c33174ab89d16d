import { describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../../examples/verify-webhook.mjs';
import { deliveryBody } from './events.js';
import { generateSecret, signedHeaders } from './signing.js';

/** The receiver guide's helper must accept exactly what the worker sends, and nothing else. */
describe('examples/verify-webhook.mjs', () => {
  const secret = generateSecret();
  const now = new Date();
  const body = deliveryBody('order.created', now, { orderId: 'o1' });
  const headers = signedHeaders({ secret, deliveryId: 'd-1', event: 'order.created', body, now });

  it('accepts a genuine delivery (Standard Webhooks headers)', () => {
    expect(verifyWebhook({ secret, headers: { ...headers }, body })).toEqual({
      ok: true,
      id: 'd-1',
      event: 'order.created',
      test: false,
    });
  });

  it('accepts the X-Webhook-Signature scheme alone, and fetch Headers', () => {
    const { 'webhook-signature': _s, 'webhook-timestamp': _t, ...simple } = headers;
    expect(verifyWebhook({ secret, headers: simple, body }).ok).toBe(true);
    expect(verifyWebhook({ secret, headers: new Headers({ ...headers }), body: Buffer.from(body) }).ok).toBe(
      true,
    );
  });

  it('refuses a tampered body, another secret, a replay and a missing signature', () => {
    expect(verifyWebhook({ secret, headers: { ...headers }, body: body.replace('o1', 'o2') }).ok).toBe(false);
    expect(verifyWebhook({ secret: generateSecret(), headers: { ...headers }, body }).ok).toBe(false);
    const later = new Date(now.getTime() + 10 * 60_000);
    expect(verifyWebhook({ secret, headers: { ...headers }, body, now: later })).toEqual({
      ok: false,
      reason: 'timestamp outside the tolerance (replay?)',
    });
    expect(verifyWebhook({ secret, headers: { 'webhook-id': 'd-1' }, body }).ok).toBe(false);
  });
});
