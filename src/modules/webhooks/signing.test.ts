import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { bodySignature, generateSecret, sameSignature, signedHeaders, standardSignature } from './signing.js';

describe('webhook signing', () => {
  it('secrets are whsec_ + 32 random bytes', () => {
    const a = generateSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.slice(6), 'base64')).toHaveLength(32);
    expect(generateSecret()).not.toBe(a);
  });

  it('X-Webhook-Signature is sha256=<hex HMAC of the raw body keyed by the secret string>', () => {
    const secret = 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LTMyYnk=';
    const body = '{"event":"order.created","timestamp":"2026-11-23T10:00:00.000Z","data":{}}';
    expect(bodySignature(secret, body)).toBe(
      `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
    );
  });

  it('the Standard Webhooks signature matches the reference construction', () => {
    // Reference values from the Standard Webhooks specification's example.
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const id = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
    const timestamp = 1614265330;
    const body = '{"test": 2432232314}';
    expect(standardSignature(secret, id, timestamp, body)).toBe(
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    );
  });

  it('signedHeaders carries every header; test sends add X-Webhook-Test', () => {
    const secret = generateSecret();
    const headers = signedHeaders({
      secret,
      deliveryId: 'd1',
      event: 'order.paid',
      body: '{}',
      now: new Date(1_700_000_000_500),
      test: true,
    });
    expect(headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'Emporium-Webhooks/1',
      'x-webhook-id': 'd1',
      'x-webhook-event': 'order.paid',
      'webhook-id': 'd1',
      'webhook-timestamp': '1700000000',
      'x-webhook-test': 'true',
    });
    expect(sameSignature(headers['x-webhook-signature'], bodySignature(secret, '{}'))).toBe(true);
    expect(sameSignature(headers['x-webhook-signature'], 'sha256=00')).toBe(false);
  });
});
