import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpServer } from '../../platform/http/server.js';
import { adminDashboardRoutes } from './admin.static.js';

let dir: string;
let server: FastifyInstance;
let missing: FastifyInstance;
const INDEX = '<!doctype html><script type="module" src="/admin/assets/index-abc123.js"></script>';
const OPERATOR = '<!doctype html><script type="module" src="/admin/assets/operator-def456.js"></script>';

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'emporium-admin-static-'));
  const dist = path.join(dir, 'dist');
  await fs.mkdir(path.join(dist, 'assets'), { recursive: true });
  await fs.writeFile(path.join(dist, 'index.html'), INDEX);
  await fs.writeFile(path.join(dist, 'operator.html'), OPERATOR);
  await fs.writeFile(path.join(dist, 'assets', 'index-abc123.js'), 'console.log(1)');
  await fs.writeFile(path.join(dist, 'assets', 'index-abc123.css'), 'body{}');
  await fs.writeFile(path.join(dist, 'assets', '.hidden.js'), 'secret');
  await fs.writeFile(path.join(dir, 'secret.txt'), 'top secret');
  await fs.symlink(path.join(dir, 'secret.txt'), path.join(dist, 'assets', 'link.js'));
  server = createHttpServer(pino({ level: 'silent' }));
  await server.register(adminDashboardRoutes, { root: dist });
  await server.register(adminDashboardRoutes, { root: dist, mount: '/operator', index: 'operator.html' });
  await server.ready();
  missing = createHttpServer(pino({ level: 'silent' }));
  await missing.register(adminDashboardRoutes, { root: path.join(dir, 'not-built') });
  await missing.ready();
});

afterAll(async () => {
  await server?.close();
  await missing?.close();
  await fs.rm(dir, { recursive: true, force: true });
});

describe('the dashboard at /admin', () => {
  it('answers /admin, /admin/ and client-side routes with index.html, revalidated on every load', async () => {
    for (const url of [
      '/admin',
      '/admin/',
      '/admin/orders',
      '/admin/orders/0192-abc?status=paid',
      '/admin/index.html',
    ]) {
      const res = await server.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['x-request-id']).toBeDefined();
      expect(res.body).toBe(INDEX);
    }
  });

  it('serves hashed assets with their type and a year-long immutable cache', async () => {
    const js = await server.inject({ method: 'GET', url: '/admin/assets/index-abc123.js' });
    expect(js.statusCode).toBe(200);
    expect(js.headers['content-type']).toMatch(/^(text|application)\/javascript; charset=utf-8$/);
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(js.headers['x-content-type-options']).toBe('nosniff');
    expect(js.body).toBe('console.log(1)');
    const css = await server.inject({ method: 'GET', url: '/admin/assets/index-abc123.css' });
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
  });

  it('answers a matching ETag with 304 and HEAD without a body', async () => {
    const first = await server.inject({ method: 'GET', url: '/admin/assets/index-abc123.js' });
    const again = await server.inject({
      method: 'GET',
      url: '/admin/assets/index-abc123.js',
      headers: { 'if-none-match': String(first.headers.etag) },
    });
    expect(again.statusCode).toBe(304);
    const head = await server.inject({ method: 'HEAD', url: '/admin/assets/index-abc123.js' });
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-length']).toBe('14');
    expect(head.body).toBe('');
  });

  it('is 404 (the API error body) for a missing file, and never leaves the build folder', async () => {
    for (const url of [
      '/admin/assets/missing.js',
      '/admin/assets/.hidden.js',
      '/admin/assets/link.js',
      '/admin/../secret.txt',
      '/admin/assets/..%2F..%2Fsecret.txt',
      '/admin/%2e%2e/secret.txt',
    ]) {
      const res = await server.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.body).not.toContain('top secret');
      expect(res.json().error.code).toBe('not_found');
    }
  });

  it('says how to build the dashboard when there is no build yet', async () => {
    const res = await missing.inject({ method: 'GET', url: '/admin/orders' });
    expect(res.statusCode).toBe(503);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toContain('npm run build:admin');
  });
});

describe('the operator console at /operator (the same build, its own entry)', () => {
  it('answers /operator and its client-side routes with operator.html, with the same headers', async () => {
    for (const url of ['/operator', '/operator/', '/operator/stores/0192-abc', '/operator/index.html']) {
      const res = await server.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.body).toBe(OPERATOR);
    }
    // The dashboard keeps its own entry.
    expect((await server.inject({ method: 'GET', url: '/admin/stores' })).body).toBe(INDEX);
  });

  it('never leaves the build folder, and /operatorx is not the console', async () => {
    for (const url of [
      '/operator/../secret.txt',
      '/operator/assets/..%2F..%2Fsecret.txt',
      '/operator/x.js',
    ]) {
      const res = await server.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.body).not.toContain('top secret');
    }
    expect((await server.inject({ method: 'GET', url: '/operatorx' })).statusCode).toBe(404);
  });
});
