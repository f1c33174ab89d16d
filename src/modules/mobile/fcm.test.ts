import { createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  checkAssertion,
  FCM_SCOPE as EXPECTED_SCOPE,
  type FakeFcm,
  INVALID_TOKEN,
  startFakeFcm,
  UNAVAILABLE,
  UNREGISTERED,
} from '../../../test/helpers/fake-fcm.js';
import { createSafeFetch, type SafeFetch } from '../../platform/net/safe-fetch.js';
import {
  AccessTokenError,
  createAccessTokenSource,
  FCM_SCOPE,
  type ServiceAccount,
  serviceAccountJwt,
} from './google-oauth.js';
import { classifyFcmResponse, createFcmProvider, type PushMessage } from './push-providers.js';

const decode = (part: string | undefined) =>
  JSON.parse(Buffer.from(part ?? '', 'base64url').toString('utf8'));

describe('serviceAccountJwt', () => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const account: ServiceAccount = {
    clientEmail: 'push@shop.iam.gserviceaccount.com',
    privateKey: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
    tokenUri: 'https://oauth2.googleapis.com/token',
  };

  it('is an RS256 JWT with the service-account claims, verifiable with the public key', () => {
    const jwt = serviceAccountJwt(account, FCM_SCOPE, 1_800_000_000);
    const [header, claims, signature] = jwt.split('.');
    expect(decode(header)).toEqual({ alg: 'RS256', typ: 'JWT' });
    expect(decode(claims)).toEqual({
      iss: 'push@shop.iam.gserviceaccount.com',
      scope: 'https://www.googleapis.com/auth/firebase.messaging',
      aud: 'https://oauth2.googleapis.com/token',
      iat: 1_800_000_000,
      exp: 1_800_003_600,
    });
    expect(jwt).not.toMatch(/[=+/]/);
    const signed = Buffer.from(`${header}.${claims}`);
    expect(verify('sha256', signed, publicKey, Buffer.from(signature ?? '', 'base64url'))).toBe(true);
    expect(
      verify(
        'sha256',
        Buffer.from(`${header}.x${claims}`),
        publicKey,
        Buffer.from(signature ?? '', 'base64url'),
      ),
    ).toBe(false);
  });

  it('passes an independent check (the fake token endpoint’s) and fails it with another key', () => {
    const jwt = serviceAccountJwt(account, FCM_SCOPE);
    const expected = { iss: account.clientEmail, aud: account.tokenUri, scope: EXPECTED_SCOPE };
    expect(checkAssertion(jwt, createPublicKey(account.privateKey), expected)).toBeUndefined();
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey;
    expect(checkAssertion(jwt, other, expected)).toBe('bad signature');
  });
});

describe('FCM over a local fake Google', () => {
  let google: FakeFcm;
  let fetch: SafeFetch;
  const message: PushMessage = {
    token: 'device-token-0123456789',
    platform: 'android',
    title: 'Order #1001 is on its way',
    body: 'Shipped with UPS, tracking number 1Z999.',
    data: { kind: 'fulfilled', orderNumber: '1001' },
  };
  const account = () => ({
    clientEmail: google.config.clientEmail,
    privateKey: google.config.privateKey,
    tokenUri: google.config.tokenUri,
  });
  const provider = () =>
    createFcmProvider({
      projectId: google.projectId,
      endpoint: google.url,
      account: account(),
      fetch,
      timeoutMs: 2000,
    });

  beforeAll(async () => {
    google = await startFakeFcm();
    fetch = createSafeFetch({ allowPrivateUrls: true });
  });
  afterAll(async () => {
    await fetch.close();
    await google.close();
  });
  beforeEach(() => {
    google.tokenRequests.length = 0;
    google.sends.length = 0;
    google.respondWith(() => ({ status: 200 }));
  });

  describe('token exchange', () => {
    it('posts the jwt-bearer grant; the endpoint verifies the signature; the token is cached', async () => {
      let now = Date.now();
      const tokens = createAccessTokenSource({ account: account(), scope: FCM_SCOPE, fetch, now: () => now });
      const [a, b] = await Promise.all([tokens.get(), tokens.get()]);
      expect(a).toMatch(/^ya29\.test-/);
      expect(b).toBe(a);
      expect(await tokens.get()).toBe(a);
      expect(google.tokenRequests).toEqual([{ grantType: 'urn:ietf:params:oauth:grant-type:jwt-bearer' }]);
      // 3599 s lifetime, refreshed 5 minutes before the end.
      now += 3000_000;
      expect(await tokens.get()).toBe(a);
      now += 400_000;
      const c = await tokens.get();
      expect(c).not.toBe(a);
      expect(google.tokenRequests).toHaveLength(2);
      tokens.invalidate();
      expect(await tokens.get()).not.toBe(c);
    });

    it('refuses a JWT signed with another key: a non-retryable AccessTokenError', async () => {
      const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
      const tokens = createAccessTokenSource({
        account: { ...account(), privateKey: stranger.export({ type: 'pkcs8', format: 'pem' }).toString() },
        scope: FCM_SCOPE,
        fetch,
      });
      const error = await tokens.get().catch((e) => e);
      expect(error).toBeInstanceOf(AccessTokenError);
      expect(error.retry).toBe(false);
      expect(error.message).toContain('invalid_grant');
      expect(google.tokenRequests[0]?.refused).toBe('bad signature');
    });

    it('an unreachable token endpoint is retryable', async () => {
      const tokens = createAccessTokenSource({
        account: { ...account(), tokenUri: 'http://127.0.0.1:9/token' },
        scope: FCM_SCOPE,
        fetch,
      });
      const error = await tokens.get().catch((e) => e);
      expect(error).toMatchObject({ name: 'AccessTokenError', retry: true });
    });
  });

  describe('send', () => {
    it('posts the v1 message with the bearer token', async () => {
      expect(await provider().send(message)).toEqual({ ok: true });
      expect(google.sends).toHaveLength(1);
      const [sent] = google.sends;
      expect(sent?.path).toBe(`/v1/projects/${google.projectId}/messages:send`);
      expect(sent?.authorization).toMatch(/^Bearer ya29\.test-\d+$/);
      expect(google.issued.has(sent?.authorization?.slice('Bearer '.length) ?? '')).toBe(true);
      expect(sent?.body).toEqual({
        message: {
          token: 'device-token-0123456789',
          notification: {
            title: 'Order #1001 is on its way',
            body: 'Shipped with UPS, tracking number 1Z999.',
          },
          data: { kind: 'fulfilled', orderNumber: '1001' },
        },
      });
    });

    it('reuses one access token across sends', async () => {
      const fcm = provider();
      await fcm.send(message);
      await fcm.send(message);
      expect(google.tokenRequests).toHaveLength(1);
      expect(new Set(google.sends.map((s) => s.authorization)).size).toBe(1);
    });

    it('UNREGISTERED → invalidToken', async () => {
      google.respondWith(() => UNREGISTERED);
      expect(await provider().send(message)).toMatchObject({ ok: false, invalidToken: true, retry: false });
    });

    it('INVALID_ARGUMENT about the token → invalidToken', async () => {
      google.respondWith(() => INVALID_TOKEN);
      expect(await provider().send(message)).toMatchObject({ ok: false, invalidToken: true, retry: false });
    });

    it('503 → retry, with its Retry-After', async () => {
      google.respondWith(() => UNAVAILABLE);
      expect(await provider().send(message)).toEqual({
        ok: false,
        retry: true,
        invalidToken: false,
        retryAfterSeconds: 7,
        error: 'FCM answered 503 UNAVAILABLE: The service is currently unavailable.',
      });
    });

    it('401 (a revoked access token) → retry, and the next send fetches a new token', async () => {
      const fcm = provider();
      expect(await fcm.send(message)).toEqual({ ok: true });
      google.revokeTokens();
      expect(await fcm.send(message)).toMatchObject({ ok: false, retry: true, invalidToken: false });
      expect(await fcm.send(message)).toEqual({ ok: true });
      expect(google.tokenRequests).toHaveLength(2);
    });

    it('an unreachable FCM → retry; a refused service account → failed without a send', async () => {
      const down = createFcmProvider({
        projectId: google.projectId,
        endpoint: 'http://127.0.0.1:9',
        account: account(),
        fetch,
        timeoutMs: 2000,
      });
      expect(await down.send(message)).toMatchObject({ ok: false, retry: true, invalidToken: false });
      const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
      const refused = createFcmProvider({
        projectId: google.projectId,
        endpoint: google.url,
        account: { ...account(), privateKey: stranger.export({ type: 'pkcs8', format: 'pem' }).toString() },
        fetch,
      });
      expect(await refused.send(message)).toMatchObject({ ok: false, retry: false, invalidToken: false });
      expect(google.sends).toHaveLength(0);
    });
  });
});

describe('classifyFcmResponse', () => {
  const fcmError = (status: number, statusName: string, errorCode?: string, message = 'x') =>
    JSON.stringify({
      error: {
        code: status,
        message,
        status: statusName,
        details: errorCode
          ? [{ '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode }]
          : undefined,
      },
    });

  it.each([
    [200, '{"name":"projects/p/messages/1"}', { ok: true }],
    [404, fcmError(404, 'NOT_FOUND', 'UNREGISTERED'), { ok: false, invalidToken: true, retry: false }],
    [400, JSON.stringify(INVALID_TOKEN.body), { ok: false, invalidToken: true, retry: false }],
    [
      400,
      fcmError(
        400,
        'INVALID_ARGUMENT',
        'INVALID_ARGUMENT',
        'The registration token is not a valid FCM registration token',
      ),
      { ok: false, invalidToken: true, retry: false },
    ],
    // Another invalid argument (the payload), not the token: failed, the device is kept.
    [
      400,
      fcmError(400, 'INVALID_ARGUMENT', 'INVALID_ARGUMENT', 'Invalid JSON payload'),
      { ok: false, invalidToken: false, retry: false },
    ],
    // A wrong project id makes every token "not found" or mismatched: never a reason to forget devices.
    [404, fcmError(404, 'NOT_FOUND'), { ok: false, invalidToken: false, retry: false }],
    [
      403,
      fcmError(403, 'PERMISSION_DENIED', 'SENDER_ID_MISMATCH'),
      { ok: false, invalidToken: false, retry: false },
    ],
    [
      429,
      fcmError(429, 'RESOURCE_EXHAUSTED', 'QUOTA_EXCEEDED'),
      { ok: false, invalidToken: false, retry: true },
    ],
    [500, fcmError(500, 'INTERNAL', 'INTERNAL'), { ok: false, invalidToken: false, retry: true }],
    [502, '<html>Bad gateway</html>', { ok: false, invalidToken: false, retry: true }],
    [
      401,
      fcmError(401, 'UNAUTHENTICATED', 'THIRD_PARTY_AUTH_ERROR'),
      { ok: false, invalidToken: false, retry: true },
    ],
  ])('%i %s', (status, body, expected) => {
    expect(classifyFcmResponse(status, body)).toMatchObject(expected);
  });

  it('names the status and the FCM error code; reads Retry-After as seconds or a date', () => {
    expect(
      classifyFcmResponse(429, fcmError(429, 'RESOURCE_EXHAUSTED', 'QUOTA_EXCEEDED', 'slow down'), '30'),
    ).toEqual({
      ok: false,
      retry: true,
      invalidToken: false,
      error: 'FCM answered 429 QUOTA_EXCEEDED: slow down',
      retryAfterSeconds: 30,
    });
    const later = new Date(Date.now() + 60_000).toUTCString();
    const result = classifyFcmResponse(503, '', later);
    expect(result.ok === false && result.retryAfterSeconds).toBeGreaterThan(50);
    expect(classifyFcmResponse(503, '', 'soon')).not.toHaveProperty('retryAfterSeconds');
  });
});
