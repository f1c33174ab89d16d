import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import { UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';

/** Security headers per surface: what every response carries, and what each surface adds. */

const PASSWORD = 'correct horse battery';
const MEDIA_KEY = `images/${'ab'.repeat(32)}.webp`;

type Probe = {
  method?: 'GET' | 'POST' | 'PUT';
  url: string;
  headers?: Record<string, string>;
  payload?: object;
};

async function signedInApp(publicUrl: string) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'emporium-headers-'));
  fs.mkdirSync(path.join(dataDir, 'media', 'images'), { recursive: true });
  fs.writeFileSync(path.join(dataDir, 'media', MEDIA_KEY), Buffer.from('RIFF....WEBP'));
  const app = await buildTestApp({ config: { ...UNLIMITED, publicUrl, dataDir, allowPrivateUrls: true } });
  const { store, key } = await createStoreWithKey(app);
  const email = `owner.${Date.now()}@example.com`;
  await app.services.stores.createAdminUser({ email, password: PASSWORD, storeSlug: store.slug });
  const login = await app.server.inject({
    method: 'POST',
    url: '/api/admin/auth/login',
    payload: { email, password: PASSWORD },
  });
  const cookie = String(login.headers['set-cookie']).split(';')[0] as string;
  return { app, store, key, cookie, login, dataDir };
}

describe('security headers on an http deployment', () => {
  let ctx: Awaited<ReturnType<typeof signedInApp>>;
  const ORIGIN = 'http://localhost:3000';
  const send = (probe: Probe) =>
    ctx.app.server.inject({
      method: probe.method ?? 'GET',
      url: probe.url,
      headers: probe.headers,
      ...(probe.payload ? { payload: probe.payload } : {}),
    });

  beforeAll(async () => {
    ctx = await signedInApp(ORIGIN);
  });
  afterAll(async () => {
    await ctx.app.close();
    fs.rmSync(ctx.dataDir, { recursive: true, force: true });
  });

  /** Responses carrying keys, tokens, secrets or personal data, and their errors. */
  const privateProbes = (): [string, Probe, number][] => [
    [
      'admin sign-in (session cookie)',
      { method: 'POST', url: '/api/admin/auth/login', payload: { email: 'x@example.com', password: 'nope' } },
      401,
    ],
    ['admin me', { url: '/api/admin/me', headers: { cookie: ctx.cookie } }, 200],
    [
      'API key creation (the key, once)',
      {
        method: 'POST',
        url: '/api/admin/api-keys',
        headers: { cookie: ctx.cookie, origin: ORIGIN },
        payload: { name: 'k', scopes: ['orders:read'] },
      },
      201,
    ],
    ['merchant customers', { url: '/api/v1/customers', headers: { 'x-api-key': ctx.key } }, 200],
    ['merchant orders', { url: '/api/v1/orders', headers: { 'x-api-key': ctx.key } }, 200],
    [
      'webhook creation (the secret, once)',
      {
        method: 'POST',
        url: '/api/v1/webhooks',
        headers: { 'x-api-key': ctx.key },
        payload: { url: 'http://127.0.0.1:9/in', events: ['order.created'] },
      },
      201,
    ],
    ['merchant API without a key', { url: '/api/v1/orders' }, 401],
    ['customer me without a session', { url: '/api/customer/me' }, 401],
    ['customer orders without a session', { url: '/api/customer/orders' }, 401],
    ['mobile without a session', { url: '/api/mobile/notifications/preferences' }, 401],
    [
      'customer sign-in code check',
      {
        method: 'POST',
        url: `/api/storefront/${ctx.store.slug}/auth/verify`,
        payload: { email: 'x@example.com', code: '000000' },
      },
      401,
    ],
    ['operations', { url: '/healthz' }, 200],
    ['an unknown route', { url: '/nowhere' }, 404],
  ];

  it('sends nosniff, no framing, no referrer, a CSP and same-origin policies on every surface; no HSTS on http', async () => {
    const probes: Probe[] = [
      ...privateProbes().map(([, probe]) => probe),
      { url: `/api/storefront/${ctx.store.slug}/products` },
      { url: `/media/${MEDIA_KEY}` },
      { url: '/openapi.json' },
      { url: '/admin' },
      { url: '/docs' },
    ];
    for (const probe of probes) {
      const res = await send(probe);
      const where = `${probe.method ?? 'GET'} ${probe.url} (${res.statusCode})`;
      expect(res.headers['x-content-type-options'], where).toBe('nosniff');
      expect(res.headers['x-frame-options'], where).toBe('DENY');
      expect(res.headers['content-security-policy'], where).toMatch(/frame-ancestors 'none'/);
      expect(res.headers['referrer-policy'], where).toBeDefined();
      expect(res.headers['cross-origin-opener-policy'], where).toBe('same-origin');
      expect(res.headers['strict-transport-security'], where).toBeUndefined();
      expect(res.headers['x-powered-by'], where).toBeUndefined();
    }
  });

  it('gives JSON answers a CSP that allows nothing', async () => {
    const res = await send({ url: '/api/v1/orders', headers: { 'x-api-key': ctx.key } });
    expect(res.headers['content-security-policy']).toBe(
      "default-src 'none';frame-ancestors 'none';base-uri 'none';form-action 'none'",
    );
    expect(res.headers['cross-origin-resource-policy']).toBe('same-origin');
  });

  it('answers private data with Cache-Control: no-store', async () => {
    for (const [name, probe, status] of privateProbes()) {
      const res = await send(probe);
      expect(res.statusCode, `${name}: ${res.body}`).toBe(status);
      expect(res.headers['cache-control'], name).toBe('no-store');
    }
  });

  it('keeps the storefront catalogue cacheable, its errors not', async () => {
    const list = await send({ url: `/api/storefront/${ctx.store.slug}/products` });
    expect(list.statusCode).toBe(200);
    expect(list.headers['cache-control']).toBe('public, max-age=30');
    const missing = await send({ url: '/api/storefront/no-such-store/products' });
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['cache-control']).toBe('no-store');
  });

  it('lets other sites embed media images (cross-origin resource policy), cached for a year', async () => {
    const res = await send({ url: `/media/${MEDIA_KEY}` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
    expect(res.headers['cache-control']).toMatch(/max-age=31536000/);
  });

  it('keeps the dashboard’s own CSP on /admin', async () => {
    const res = await send({ url: '/admin' });
    expect(res.headers['content-security-policy']).toMatch(/^default-src 'self'; script-src 'self'; /);
    expect(res.headers['cache-control']).toMatch(/no-cache|no-store/);
  });
});

describe('/docs: a CSP as strict as /admin’s, and the page still loads its assets from self', () => {
  let ctx: Awaited<ReturnType<typeof signedInApp>>;
  let docs: LightMyRequestResponse;
  beforeAll(async () => {
    ctx = await signedInApp('http://localhost:3000');
    docs = await ctx.app.server.inject({ method: 'GET', url: '/docs' });
  });
  afterAll(async () => {
    await ctx.app.close();
    fs.rmSync(ctx.dataDir, { recursive: true, force: true });
  });

  const directives = (csp: string | undefined) =>
    new Map(
      (csp ?? '')
        .split(';')
        .map((d) => d.trim().split(/\s+/))
        .filter((parts) => parts[0])
        .map(([name, ...values]) => [name as string, values]),
    );

  it('sends a CSP allowing scripts, connections and frames from self only', () => {
    expect(docs.statusCode).toBe(200);
    const csp = directives(docs.headers['content-security-policy'] as string);
    expect(csp.get('default-src')).toEqual(["'self'"]);
    expect(csp.get('script-src')).toEqual(["'self'"]);
    expect(csp.get('connect-src')).toEqual(["'self'"]);
    expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
    expect(csp.get('object-src')).toEqual(["'none'"]);
    expect(csp.get('base-uri')).toEqual(["'self'"]);
    expect(csp.get('form-action')).toEqual(["'self'"]);
    for (const values of csp.values()) {
      expect(values).not.toContain("'unsafe-eval'");
      expect(values).not.toContain('https:');
    }
    expect(csp.get('script-src')).not.toContain("'unsafe-inline'");
  });

  it('has no inline script, and every script and style it names loads from self', async () => {
    const html = docs.body;
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] as string);
    expect(assets.length).toBeGreaterThanOrEqual(4);
    for (const asset of assets) {
      const url = new URL(asset, 'http://localhost:3000/docs');
      expect(url.origin, asset).toBe('http://localhost:3000');
      const res = await ctx.app.server.inject({ method: 'GET', url: url.pathname });
      expect(res.statusCode, asset).toBe(200);
      expect(res.headers['x-content-type-options'], asset).toBe('nosniff');
      if (asset.endsWith('.js')) expect(res.headers['content-type']).toMatch(/javascript/);
      if (asset.endsWith('.css')) expect(res.headers['content-type']).toMatch(/text\/css/);
    }
    const spec = await ctx.app.server.inject({ method: 'GET', url: '/docs/json' });
    expect(spec.statusCode).toBe(200);
    expect(spec.json().openapi).toBe('3.1.0');
  });
});

describe('security headers on an https deployment', () => {
  let ctx: Awaited<ReturnType<typeof signedInApp>>;
  beforeAll(async () => {
    ctx = await signedInApp('https://shop.example.com');
  });
  afterAll(async () => {
    await ctx.app.close();
    fs.rmSync(ctx.dataDir, { recursive: true, force: true });
  });

  it('sends HSTS for a year on every surface, errors included', async () => {
    for (const url of ['/healthz', '/api/v1/orders', '/nowhere', '/docs', '/admin', `/media/${MEDIA_KEY}`]) {
      const res = await ctx.app.server.inject({ method: 'GET', url });
      expect(res.headers['strict-transport-security'], url).toBe('max-age=31536000');
    }
  });
});
