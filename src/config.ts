import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { boolean, ConfigError, decimal, type Env, integer, mailbox, url, value } from './config-values.js';
import { chooseLogFormat, LOG_FORMATS, type LogFormat } from './platform/log.js';

export { ConfigError } from './config-values.js';

/** Typed configuration read from the environment once, at start. */
export interface Config {
  port: number;
  host: string;
  publicUrl: string;
  dataDir: string;
  databaseUrl: string | undefined;
  /**
   * DATABASE_STATEMENT_TIMEOUT_MS: PostgreSQL's statement_timeout for the statements of `serve` and
   * `worker` (0: none). CLI bulk commands (seed) and migrations run without one.
   */
  databaseStatementTimeoutMs: number;
  redisUrl: string | undefined;
  smtpUrl: string | undefined;
  /** Sender of outgoing e-mail: MAIL_FROM, else `Emporium <no-reply@PUBLIC_URL's host name>`. */
  mailFrom: string;
  /**
   * MAIL_RETRY_SCHEDULE (seconds, fractions allowed): the delays before a notification's 2nd, 3rd…
   * attempts after a network error or an SMTP 4xx answer (± 10 %); ms here. Contract §13's default.
   */
  mailRetryScheduleMs: number[];
  /** MAIL_TIMEOUT_MS: the SMTP connection, greeting and inactivity time-out of outgoing e-mail. */
  mailTimeoutMs: number;
  appSecret: string | undefined;
  rateLimitPerMinute: number;
  webhookRetrySchedule: number[];
  webhookTimeoutMs: number;
  webhookDisableAfterHours: number;
  allowPrivateUrls: boolean;
  /** Behind a load balancer: take the client address from X-Forwarded-For (per-IP limits). */
  trustProxy: boolean;
  logLevel: string;
  /** LOG_FORMAT: json or pretty; unset, pretty in development at a terminal, else json. */
  logFormat: LogFormat;
  production: boolean;
  media: MediaConfig;
  /** FCM HTTP v1 for push notifications; undefined: push notifications are written to the log. */
  fcm: FcmConfig | undefined;
  /** Bounds on slow and numerous clients (see HttpLimits). */
  httpLimits: HttpLimits;
  /** STRIPE_API_BASE (Stripe's own by default) and STRIPE_TIMEOUT_MS: where and how long the SDK calls. */
  stripe: { apiBase: string; timeoutMs: number };
  /** PAYMENT_HOLD_MINUTES: how long an order waiting for a card payment holds its stock (fractions allowed). */
  paymentHoldMinutes: number;
  /**
   * SIGNUP: whether anyone may create a store at /admin/signup. Default closed, except on the
   * embedded development default (no DATABASE_URL, not production), where it is open.
   */
  signup: 'open' | 'closed';
}

/** How long a client may take and how many connections it may hold (README: Security). */
export interface HttpLimits {
  /** REQUEST_TIMEOUT_MS: the whole request, headers and body, must arrive within this; else 408. */
  requestTimeoutMs: number;
  /** HEADERS_TIMEOUT_MS: the request line and headers must arrive within this (also a new, silent connection). */
  headersTimeoutMs: number;
  /** KEEP_ALIVE_TIMEOUT_MS: an idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /**
   * MAX_CONNECTIONS: open connections of the process; at the cap, a new connection closes idle and
   * slow ones to make room, and is itself closed only when there are none.
   */
  maxConnections: number;
  /** MAX_CONNECTIONS_PER_ADDRESS: open connections of one client address; 0: no such limit. */
  maxConnectionsPerAddress: number;
  /** MIN_REQUEST_BODY_RATE: bytes per second a request body must average after its grace; 0: none. */
  minRequestBodyRate: number;
  /** MIN_REQUEST_BODY_RATE_GRACE_MS: how long a request body may arrive at any rate. */
  minRequestBodyRateGraceMs: number;
}

export interface FcmConfig {
  projectId: string;
  /** Base URL of the FCM API, without a trailing slash. */
  endpoint: string;
  /** The service account (from FCM_SERVICE_ACCOUNT) whose key signs the OAuth 2.0 assertion. */
  clientEmail: string;
  privateKey: string;
  tokenUri: string;
}

export interface MediaConfig {
  driver: 'local' | 's3';
  s3?: { bucket: string; endpoint?: string; region: string; publicUrl: string };
}

/**
 * FCM_SERVICE_ACCOUNT (a path to the service-account JSON file, or the JSON itself), FCM_PROJECT_ID
 * (default: the file's project_id) and FCM_ENDPOINT. The key is parsed here so a bad one stops the start.
 */
function fcm(env: Env): FcmConfig | undefined {
  const raw = value(env, 'FCM_SERVICE_ACCOUNT');
  if (raw === undefined) {
    for (const name of ['FCM_PROJECT_ID', 'FCM_ENDPOINT']) {
      if (value(env, name) !== undefined)
        throw new ConfigError(name, 'is set, but FCM_SERVICE_ACCOUNT is not');
    }
    return undefined;
  }
  const name = 'FCM_SERVICE_ACCOUNT';
  let text = raw;
  if (!raw.startsWith('{')) {
    try {
      text = readFileSync(raw, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      throw new ConfigError(name, `cannot read the service-account file "${raw}" (${code})`);
    }
  }
  let account: Record<string, unknown>;
  try {
    account = JSON.parse(text);
  } catch {
    throw new ConfigError(name, 'must be the path to a service-account JSON file, or that JSON itself');
  }
  if (typeof account !== 'object' || account === null || Array.isArray(account)) {
    throw new ConfigError(name, 'must be a service-account JSON object');
  }
  if (account.type !== undefined && account.type !== 'service_account') {
    throw new ConfigError(
      name,
      `must be a service-account key (type "service_account"), got "${account.type}"`,
    );
  }
  const field = (key: string) => {
    const v = account[key];
    if (typeof v !== 'string' || v.trim() === '') throw new ConfigError(name, `has no ${key}`);
    return v;
  };
  const clientEmail = field('client_email');
  const privateKey = field('private_key');
  try {
    createPrivateKey(privateKey);
  } catch {
    throw new ConfigError(name, 'private_key is not a PEM private key');
  }
  const tokenUri =
    account.token_uri === undefined ? 'https://oauth2.googleapis.com/token' : field('token_uri');
  if (!/^https?:\/\/[^\s]+$/.test(tokenUri) || !URL.canParse(tokenUri)) {
    throw new ConfigError(name, `token_uri must be an http(s) URL, got "${tokenUri}"`);
  }
  const projectId =
    value(env, 'FCM_PROJECT_ID') ?? (typeof account.project_id === 'string' ? account.project_id : undefined);
  if (projectId === undefined) {
    throw new ConfigError('FCM_PROJECT_ID', 'is required: the service account names no project_id');
  }
  if (!/^[A-Za-z0-9][A-Za-z0-9.:_-]*$/.test(projectId)) {
    throw new ConfigError('FCM_PROJECT_ID', `is not a project id, got "${projectId}"`);
  }
  const endpoint = (url(env, 'FCM_ENDPOINT', ['http:', 'https:']) ?? 'https://fcm.googleapis.com').replace(
    /\/+$/,
    '',
  );
  return { projectId, endpoint, clientEmail, privateKey, tokenUri };
}

/** The soft limit on open files of this process (Linux), or undefined where it cannot be read. */
function openFileLimit(): number | undefined {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
    return soft && /^\d+$/.test(soft) ? Number(soft) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The HTTP server's limits. MAX_CONNECTIONS defaults to 10,000, or 80% of the open-file limit when
 * that is lower (the rest is for the database pool, media files and logs). Behind a load balancer
 * (TRUST_PROXY) every connection comes from the balancer, so there is no per-address limit unless
 * one is set. A request body must average MIN_REQUEST_BODY_RATE (240 bytes/s) once
 * MIN_REQUEST_BODY_RATE_GRACE_MS (5 s) have passed: Kestrel's MinRequestBodyDataRate defaults.
 */
function httpLimits(env: Env, trustProxy: boolean): HttpLimits {
  const requestTimeoutMs = integer(env, 'REQUEST_TIMEOUT_MS', 30_000, 1000, 3_600_000);
  const headersTimeoutMs = integer(
    env,
    'HEADERS_TIMEOUT_MS',
    Math.min(10_000, requestTimeoutMs),
    500,
    3_600_000,
  );
  if (headersTimeoutMs > requestTimeoutMs) {
    throw new ConfigError(
      'HEADERS_TIMEOUT_MS',
      `must not exceed REQUEST_TIMEOUT_MS (${requestTimeoutMs}), got ${headersTimeoutMs}`,
    );
  }
  const files = openFileLimit();
  const defaultMax = Math.max(100, Math.min(10_000, files === undefined ? 10_000 : Math.floor(files * 0.8)));
  return {
    requestTimeoutMs,
    headersTimeoutMs,
    keepAliveTimeoutMs: integer(env, 'KEEP_ALIVE_TIMEOUT_MS', 72_000, 1000, 3_600_000),
    maxConnections: integer(env, 'MAX_CONNECTIONS', defaultMax, 1, 10_000_000),
    maxConnectionsPerAddress: integer(
      env,
      'MAX_CONNECTIONS_PER_ADDRESS',
      trustProxy ? 0 : 256,
      0,
      10_000_000,
    ),
    minRequestBodyRate: integer(env, 'MIN_REQUEST_BODY_RATE', 240, 0, 1_000_000_000),
    minRequestBodyRateGraceMs: integer(env, 'MIN_REQUEST_BODY_RATE_GRACE_MS', 5000, 100, 3_600_000),
  };
}

/** SIGNUP=open|closed; unset: open only on the embedded development default (no DATABASE_URL). */
function signupMode(env: Env, production: boolean): 'open' | 'closed' {
  const raw = value(env, 'SIGNUP')?.toLowerCase();
  if (raw === undefined) return value(env, 'DATABASE_URL') === undefined && !production ? 'open' : 'closed';
  if (raw !== 'open' && raw !== 'closed')
    throw new ConfigError('SIGNUP', `must be open or closed, got "${raw}"`);
  return raw;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Reads and validates the environment; throws ConfigError naming the first bad variable. */
export function loadConfig(env: Env = process.env, overrides: Partial<Config> = {}): Config {
  const port = integer(env, 'PORT', 3000, 0, 65535);
  const schedule = value(env, 'WEBHOOK_RETRY_SCHEDULE') ?? '60,300,1800,7200,21600,43200,86400';
  const webhookRetrySchedule = schedule.split(',').map((part) => {
    const s = part.trim();
    if (!/^\d+$/.test(s)) {
      throw new ConfigError(
        'WEBHOOK_RETRY_SCHEDULE',
        `must be comma-separated whole seconds, got "${schedule}"`,
      );
    }
    return Number(s);
  });
  const mailSchedule = value(env, 'MAIL_RETRY_SCHEDULE') ?? '60,300,1800,7200,43200';
  const mailRetryScheduleMs = mailSchedule.split(',').map((part) => {
    const s = part.trim();
    if (!/^\d+(\.\d+)?$/.test(s)) {
      throw new ConfigError(
        'MAIL_RETRY_SCHEDULE',
        `must be comma-separated seconds such as 60,300,1800, got "${mailSchedule}"`,
      );
    }
    return Math.round(Number(s) * 1000);
  });
  const logLevel = value(env, 'LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  }
  const logFormatSetting = value(env, 'LOG_FORMAT');
  if (logFormatSetting !== undefined && !(LOG_FORMATS as readonly string[]).includes(logFormatSetting)) {
    throw new ConfigError(
      'LOG_FORMAT',
      `must be one of ${LOG_FORMATS.join(', ')}, got "${logFormatSetting}"`,
    );
  }
  const production = value(env, 'NODE_ENV') === 'production';
  const appSecret = value(env, 'APP_SECRET');
  if (appSecret !== undefined && appSecret.length < 32) {
    throw new ConfigError('APP_SECRET', 'must be at least 32 characters long');
  }
  const driver = value(env, 'MEDIA_DRIVER') ?? 'local';
  if (driver !== 'local' && driver !== 's3')
    throw new ConfigError('MEDIA_DRIVER', `must be local or s3, got "${driver}"`);
  let media: MediaConfig = { driver };
  if (driver === 's3') {
    const need = (name: string) => {
      const v = value(env, name);
      if (!v) throw new ConfigError(name, 'is required when MEDIA_DRIVER=s3');
      return v;
    };
    media = {
      driver,
      s3: {
        bucket: need('S3_BUCKET'),
        region: value(env, 'S3_REGION') ?? value(env, 'AWS_REGION') ?? 'us-east-1',
        endpoint: url(env, 'S3_ENDPOINT', ['http:', 'https:']),
        publicUrl: (url(env, 'S3_PUBLIC_URL', ['http:', 'https:']) ?? need('S3_PUBLIC_URL')).replace(
          /\/+$/,
          '',
        ),
      },
    };
  }
  const publicUrl = (url(env, 'PUBLIC_URL', ['http:', 'https:']) ?? `http://localhost:${port}`).replace(
    /\/+$/,
    '',
  );
  const trustProxy = boolean(env, 'TRUST_PROXY', false);
  const config: Config = {
    port,
    host: value(env, 'HOST') ?? '0.0.0.0',
    publicUrl,
    dataDir: path.resolve(value(env, 'DATA_DIR') ?? './data'),
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    databaseStatementTimeoutMs: integer(env, 'DATABASE_STATEMENT_TIMEOUT_MS', 10_000, 0, 3_600_000),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    smtpUrl: url(env, 'SMTP_URL', ['smtp:', 'smtps:']),
    mailFrom: mailbox(env, 'MAIL_FROM') ?? `Emporium <no-reply@${new URL(publicUrl).hostname}>`,
    mailRetryScheduleMs,
    mailTimeoutMs: integer(env, 'MAIL_TIMEOUT_MS', 10_000, 100, 600_000),
    appSecret,
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 100, 1, 1_000_000_000),
    webhookRetrySchedule,
    webhookTimeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 600_000),
    webhookDisableAfterHours: integer(env, 'WEBHOOK_DISABLE_AFTER_HOURS', 120, 1, 100_000),
    allowPrivateUrls: boolean(env, 'ALLOW_PRIVATE_URLS', false),
    trustProxy,
    logLevel,
    logFormat: chooseLogFormat(
      logFormatSetting as LogFormat | undefined,
      production,
      process.stdout.isTTY === true,
    ),
    production,
    media,
    fcm: fcm(env),
    httpLimits: httpLimits(env, trustProxy),
    stripe: {
      apiBase: (url(env, 'STRIPE_API_BASE', ['http:', 'https:']) ?? 'https://api.stripe.com').replace(
        /\/+$/,
        '',
      ),
      timeoutMs: integer(env, 'STRIPE_TIMEOUT_MS', 10_000, 100, 120_000),
    },
    paymentHoldMinutes: decimal(env, 'PAYMENT_HOLD_MINUTES', 30, 0.01, 10_080),
    signup: signupMode(env, production),
  };
  return { ...config, ...overrides };
}
