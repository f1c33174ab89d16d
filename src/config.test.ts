import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

describe('loadConfig', () => {
  // toMatchObject: other modules add their own settings; these are the contract's.
  it('applies the documented defaults to an empty environment', () => {
    expect(loadConfig({})).toMatchObject({
      port: 3000,
      host: '0.0.0.0',
      publicUrl: 'http://localhost:3000',
      dataDir: path.resolve('./data'),
      databaseUrl: undefined,
      redisUrl: undefined,
      smtpUrl: undefined,
      mailFrom: 'Emporium <no-reply@localhost>',
      mailRetryScheduleMs: [60_000, 300_000, 1_800_000, 7_200_000, 43_200_000],
      mailTimeoutMs: 10_000,
      appSecret: undefined,
      rateLimitPerMinute: 100,
      webhookRetrySchedule: [60, 300, 1800, 7200, 21600, 43200, 86400],
      webhookTimeoutMs: 10_000,
      webhookDisableAfterHours: 120,
      allowPrivateUrls: false,
      logLevel: 'info',
      production: false,
      databaseStatementTimeoutMs: 10_000,
    });
  });

  it('reads the Stripe settings: API base, time-out, and a payment hold that may be a fraction', () => {
    expect(loadConfig({})).toMatchObject({
      stripe: { apiBase: 'https://api.stripe.com', timeoutMs: 10_000 },
      paymentHoldMinutes: 30,
    });
    expect(
      loadConfig({
        STRIPE_API_BASE: 'http://127.0.0.1:12111/',
        STRIPE_TIMEOUT_MS: '2500',
        PAYMENT_HOLD_MINUTES: '0.05',
      }),
    ).toMatchObject({
      stripe: { apiBase: 'http://127.0.0.1:12111', timeoutMs: 2500 },
      paymentHoldMinutes: 0.05,
    });
    for (const [name, value] of [
      ['STRIPE_API_BASE', 'ftp://stripe.local'],
      ['STRIPE_API_BASE', 'not a url'],
      ['STRIPE_TIMEOUT_MS', 'soon'],
      ['PAYMENT_HOLD_MINUTES', '-1'],
      ['PAYMENT_HOLD_MINUTES', 'half an hour'],
      ['PAYMENT_HOLD_MINUTES', '0'],
    ] as const) {
      expect(() => loadConfig({ [name]: value }), `${name}=${value}`).toThrow(ConfigError);
      expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`^${name}: `));
    }
  });

  it('opens sign-up on the embedded development default only, unless SIGNUP says', () => {
    expect(loadConfig({}).signup).toBe('open');
    expect(loadConfig({ DATABASE_URL: 'postgres://db/shop' }).signup).toBe('closed');
    expect(loadConfig({ NODE_ENV: 'production' }).signup).toBe('closed');
    expect(loadConfig({ SIGNUP: 'closed' }).signup).toBe('closed');
    expect(loadConfig({ SIGNUP: ' OPEN ', DATABASE_URL: 'postgres://db/shop' }).signup).toBe('open');
    expect(loadConfig({ SIGNUP: 'open', NODE_ENV: 'production' }).signup).toBe('open');
    expect(() => loadConfig({ SIGNUP: 'yes' })).toThrow(/^SIGNUP: must be open or closed/);
  });

  it('treats empty and blank variables as unset', () => {
    expect(loadConfig({ PORT: '', RATE_LIMIT_PER_MINUTE: '  ', DATABASE_URL: '' })).toMatchObject({
      port: 3000,
      rateLimitPerMinute: 100,
      databaseUrl: undefined,
    });
  });

  it('reads valid values', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '127.0.0.1',
      DATA_DIR: '/var/lib/emporium',
      DATABASE_URL: 'postgresql://app@db:5432/shop',
      REDIS_URL: 'redis://cache:6379',
      SMTP_URL: 'smtp://mail:25',
      APP_SECRET: 'x'.repeat(32),
      RATE_LIMIT_PER_MINUTE: ' 5 ',
      WEBHOOK_RETRY_SCHEDULE: '1, 2,3',
      MAIL_RETRY_SCHEDULE: '0.5, 2',
      MAIL_TIMEOUT_MS: '1500',
      WEBHOOK_TIMEOUT_MS: '2500',
      WEBHOOK_DISABLE_AFTER_HOURS: '1',
      DATABASE_STATEMENT_TIMEOUT_MS: '0',
      ALLOW_PRIVATE_URLS: 'TRUE',
      LOG_LEVEL: 'debug',
      NODE_ENV: 'production',
    });
    expect(config).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      publicUrl: 'http://localhost:8080',
      dataDir: '/var/lib/emporium',
      databaseUrl: 'postgresql://app@db:5432/shop',
      redisUrl: 'redis://cache:6379',
      smtpUrl: 'smtp://mail:25',
      rateLimitPerMinute: 5,
      webhookRetrySchedule: [1, 2, 3],
      mailRetryScheduleMs: [500, 2000],
      mailTimeoutMs: 1500,
      webhookTimeoutMs: 2500,
      webhookDisableAfterHours: 1,
      databaseStatementTimeoutMs: 0,
      allowPrivateUrls: true,
      logLevel: 'debug',
      production: true,
    });
  });

  it('drops trailing slashes from PUBLIC_URL', () => {
    expect(loadConfig({ PUBLIC_URL: 'https://shop.example.com/' }).publicUrl).toBe(
      'https://shop.example.com',
    );
  });

  it('sends e-mail from no-reply at the host of PUBLIC_URL unless MAIL_FROM says otherwise', () => {
    expect(loadConfig({ PUBLIC_URL: 'https://shop.example.com:8443/' }).mailFrom).toBe(
      'Emporium <no-reply@shop.example.com>',
    );
    expect(loadConfig({ MAIL_FROM: ' "Shop, Inc." <orders@shop.example.com> ' }).mailFrom).toBe(
      '"Shop, Inc." <orders@shop.example.com>',
    );
    expect(loadConfig({ MAIL_FROM: 'orders@shop.example.com' }).mailFrom).toBe('orders@shop.example.com');
  });

  it.each(['true', '1', 'yes', 'false', '0', 'no'])('accepts ALLOW_PRIVATE_URLS=%s', (raw) => {
    expect(loadConfig({ ALLOW_PRIVATE_URLS: raw }).allowPrivateUrls).toBe(['true', '1', 'yes'].includes(raw));
  });

  it('lets overrides win over the environment', () => {
    expect(loadConfig({ RATE_LIMIT_PER_MINUTE: '50' }, { rateLimitPerMinute: 5 }).rateLimitPerMinute).toBe(5);
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['PORT', '-1'],
    ['PORT', '80.5'],
    ['RATE_LIMIT_PER_MINUTE', '0'],
    ['RATE_LIMIT_PER_MINUTE', 'many'],
    ['WEBHOOK_TIMEOUT_MS', '10'],
    ['WEBHOOK_DISABLE_AFTER_HOURS', '0'],
    ['DATABASE_URL', 'mysql://x'],
    ['DATABASE_URL', 'not a url'],
    ['REDIS_URL', 'http://cache:6379'],
    ['PUBLIC_URL', 'ftp://shop.example.com'],
    ['SMTP_URL', 'mailto:someone@example.com'],
    ['MAIL_FROM', 'no-reply'],
    ['MAIL_FROM', 'Shop <shop@example.com'],
    ['MAIL_FROM', 'Shop <shop example.com>'],
    ['MAIL_FROM', 'Shop <a@b>\nBcc: c@d'],
    ['WEBHOOK_RETRY_SCHEDULE', '1,a'],
    ['WEBHOOK_RETRY_SCHEDULE', '1,,2'],
    ['MAIL_RETRY_SCHEDULE', '1,soon'],
    ['MAIL_RETRY_SCHEDULE', '-1'],
    ['MAIL_TIMEOUT_MS', '10'],
    ['LOG_LEVEL', 'loud'],
    ['LOG_FORMAT', 'text'],
    ['ALLOW_PRIVATE_URLS', 'maybe'],
    ['APP_SECRET', 'too-short'],
    ['REQUEST_TIMEOUT_MS', '30s'],
    ['REQUEST_TIMEOUT_MS', '10'],
    ['HEADERS_TIMEOUT_MS', '100'],
    ['HEADERS_TIMEOUT_MS', '60000'],
    ['KEEP_ALIVE_TIMEOUT_MS', '0'],
    ['MAX_CONNECTIONS', '0'],
    ['MAX_CONNECTIONS', 'lots'],
    ['MAX_CONNECTIONS_PER_ADDRESS', '-5'],
    ['MIN_REQUEST_BODY_RATE', '240 B/s'],
    ['MIN_REQUEST_BODY_RATE_GRACE_MS', '0'],
  ])('rejects %s=%s with a ConfigError naming it, on one line', (variable, raw) => {
    let error: unknown;
    try {
      loadConfig({ [variable]: raw });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const configError = error as ConfigError;
    expect(configError.variable).toBe(variable);
    expect(configError.message.startsWith(`${variable}: `)).toBe(true);
    expect(configError.message).not.toContain('\n');
  });

  it('bounds slow and numerous clients by default; TRUST_PROXY lifts the per-address limit', () => {
    const { httpLimits } = loadConfig({});
    expect(httpLimits).toMatchObject({
      requestTimeoutMs: 30_000,
      headersTimeoutMs: 10_000,
      keepAliveTimeoutMs: 72_000,
      maxConnectionsPerAddress: 256,
    });
    expect(httpLimits.maxConnections).toBeGreaterThanOrEqual(100);
    expect(httpLimits.maxConnections).toBeLessThanOrEqual(10_000);
    expect(loadConfig({ TRUST_PROXY: 'true' }).httpLimits.maxConnectionsPerAddress).toBe(0);
    expect(
      loadConfig({
        TRUST_PROXY: 'true',
        MAX_CONNECTIONS_PER_ADDRESS: '50',
        MAX_CONNECTIONS: '2000',
        REQUEST_TIMEOUT_MS: '5000',
        KEEP_ALIVE_TIMEOUT_MS: '65000',
      }).httpLimits,
    ).toEqual({
      requestTimeoutMs: 5000,
      headersTimeoutMs: 5000,
      keepAliveTimeoutMs: 65_000,
      maxConnections: 2000,
      maxConnectionsPerAddress: 50,
      minRequestBodyRate: 240,
      minRequestBodyRateGraceMs: 5000,
    });
    expect(() => loadConfig({ REQUEST_TIMEOUT_MS: '5000', HEADERS_TIMEOUT_MS: '6000' })).toThrow(
      'HEADERS_TIMEOUT_MS: must not exceed REQUEST_TIMEOUT_MS (5000), got 6000',
    );
  });

  it('accepts the edges of the ranges', () => {
    expect(loadConfig({ PORT: '65535' }).port).toBe(65535);
    expect(loadConfig({ RATE_LIMIT_PER_MINUTE: '1' }).rateLimitPerMinute).toBe(1);
    expect(loadConfig({ APP_SECRET: 'x'.repeat(32) }).appSecret).toHaveLength(32);
  });
});

describe('loadConfig: FCM push notifications', () => {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const account = {
    type: 'service_account',
    project_id: 'shop-app',
    client_email: 'push@shop-app.iam.gserviceaccount.com',
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
  const json = JSON.stringify(account);

  const errorOf = (env: Record<string, string>) => {
    try {
      loadConfig(env);
    } catch (error) {
      return error as ConfigError;
    }
    throw new Error('no ConfigError');
  };

  it('is off (pushes go to the log) without FCM_SERVICE_ACCOUNT', () => {
    expect(loadConfig({}).fcm).toBeUndefined();
  });

  it('reads the service account from inline JSON, with the defaults', () => {
    expect(loadConfig({ FCM_SERVICE_ACCOUNT: json }).fcm).toEqual({
      projectId: 'shop-app',
      endpoint: 'https://fcm.googleapis.com',
      clientEmail: account.client_email,
      privateKey: account.private_key,
      tokenUri: 'https://oauth2.googleapis.com/token',
    });
  });

  it('reads the service account from a file; FCM_PROJECT_ID, FCM_ENDPOINT and token_uri override', () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'emporium-fcm-')), 'account.json');
    writeFileSync(file, JSON.stringify({ ...account, token_uri: 'http://127.0.0.1:9/token' }));
    expect(
      loadConfig({
        FCM_SERVICE_ACCOUNT: file,
        FCM_PROJECT_ID: 'other-app',
        FCM_ENDPOINT: 'http://127.0.0.1:9/',
      }).fcm,
    ).toMatchObject({
      projectId: 'other-app',
      endpoint: 'http://127.0.0.1:9',
      tokenUri: 'http://127.0.0.1:9/token',
    });
  });

  it.each([
    [{ FCM_SERVICE_ACCOUNT: '/nonexistent/account.json' }, 'FCM_SERVICE_ACCOUNT', 'cannot read'],
    [{ FCM_SERVICE_ACCOUNT: '{not json' }, 'FCM_SERVICE_ACCOUNT', 'JSON'],
    [
      { FCM_SERVICE_ACCOUNT: JSON.stringify({ ...account, type: 'authorized_user' }) },
      'FCM_SERVICE_ACCOUNT',
      'type',
    ],
    [
      { FCM_SERVICE_ACCOUNT: JSON.stringify({ ...account, client_email: undefined }) },
      'FCM_SERVICE_ACCOUNT',
      'client_email',
    ],
    [
      { FCM_SERVICE_ACCOUNT: JSON.stringify({ ...account, private_key: 'nope' }) },
      'FCM_SERVICE_ACCOUNT',
      'private_key',
    ],
    [
      { FCM_SERVICE_ACCOUNT: JSON.stringify({ ...account, token_uri: 'ftp://x' }) },
      'FCM_SERVICE_ACCOUNT',
      'token_uri',
    ],
    [
      { FCM_SERVICE_ACCOUNT: JSON.stringify({ ...account, project_id: undefined }) },
      'FCM_PROJECT_ID',
      'required',
    ],
    [{ FCM_SERVICE_ACCOUNT: json, FCM_PROJECT_ID: 'a/../b' }, 'FCM_PROJECT_ID', 'project id'],
    [{ FCM_SERVICE_ACCOUNT: json, FCM_ENDPOINT: 'fcm.googleapis.com' }, 'FCM_ENDPOINT', 'URL'],
    [{ FCM_PROJECT_ID: 'shop-app' }, 'FCM_PROJECT_ID', 'FCM_SERVICE_ACCOUNT'],
  ])('rejects a bad FCM setting with one line naming the variable (%#)', (env, variable, words) => {
    const error = errorOf(env);
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.variable).toBe(variable);
    expect(error.message).toContain(words);
    expect(error.message).not.toContain('\n');
    expect(error.message).not.toContain('PRIVATE KEY');
  });
});
