import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpServer } from '../../platform/http/server.js';
import { mediaRoutes } from './media.routes.js';
import { createLocalStorage, localMediaRoot, MEDIA_CACHE_CONTROL } from './media.storage.js';

let dataDir: string;
let server: FastifyInstance;
const webp = Buffer.from('RIFF....WEBPVP8 fake bytes');

beforeAll(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'emporium-media-routes-'));
  const root = localMediaRoot(dataDir);
  const storage = createLocalStorage({ root, publicUrl: 'http://localhost' });
  await storage.put('images/abc.webp', webp, 'image/webp');
  await storage.put('images/photo.jpg', Buffer.from('jpeg'), 'image/jpeg');
  await storage.put('other/blob.bin', Buffer.from('bin'), 'application/octet-stream');
  await fs.mkdir(path.join(root, 'images', 'folder.webp'));
  await fs.writeFile(path.join(root, 'images', '.tmp-123'), 'partial');
  await fs.writeFile(path.join(dataDir, 'secret.txt'), 'top secret');
  await fs.symlink(path.join(dataDir, 'secret.txt'), path.join(root, 'images', 'link.webp'));
  server = createHttpServer(pino({ level: 'silent' }));
  await server.register(mediaRoutes, { root });
  await server.ready();
});

afterAll(async () => {
  await server?.close();
  await fs.rm(dataDir, { recursive: true, force: true });
});

describe('GET /media/*', () => {
  it('serves a file with its type, length, ETag and an immutable cache header', async () => {
    const response = await server.inject({ method: 'GET', url: '/media/images/abc.webp' });
    expect(response.statusCode).toBe(200);
    expect(response.rawPayload).toEqual(webp);
    expect(response.headers['content-type']).toBe('image/webp');
    expect(response.headers['content-length']).toBe(String(webp.length));
    expect(response.headers['cache-control']).toBe(MEDIA_CACHE_CONTROL);
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers.etag).toMatch(/^(W\/)?"[0-9a-f]+-[0-9a-f]+"$/);

    expect((await server.inject({ url: '/media/images/photo.jpg' })).headers['content-type']).toBe(
      'image/jpeg',
    );
    expect((await server.inject({ url: '/media/other/blob.bin' })).headers['content-type']).toBe(
      'application/octet-stream',
    );
  });

  it('answers 304 to a matching If-None-Match', async () => {
    const first = await server.inject({ url: '/media/images/abc.webp' });
    const etag = first.headers.etag as string;
    const second = await server.inject({
      url: '/media/images/abc.webp',
      headers: { 'if-none-match': `W/"x", ${etag}` },
    });
    expect(second.statusCode).toBe(304);
    expect(second.body).toBe('');
    expect(second.headers.etag).toBe(etag);
    const stale = await server.inject({
      url: '/media/images/abc.webp',
      headers: { 'if-none-match': '"other"' },
    });
    expect(stale.statusCode).toBe(200);
  });

  it('answers HEAD without a body', async () => {
    const response = await server.inject({ method: 'HEAD', url: '/media/images/abc.webp' });
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('');
    expect(response.headers['content-length']).toBe(String(webp.length));
  });

  it('ignores the query string', async () => {
    expect((await server.inject({ url: '/media/images/abc.webp?v=2' })).statusCode).toBe(200);
  });

  it.each([
    '/media/images/missing.webp',
    '/media/images/folder.webp',
    '/media/images/.tmp-123',
    '/media/images/link.webp',
    '/media/',
    '/media/images/../../secret.txt',
    '/media/..%2fsecret.txt',
    '/media/images%2fabc.webp',
    '/media/%2e%2e/secret.txt',
    '/media/images/..%5c..%5csecret.txt',
    '/media//etc/passwd',
    '/media/%2fetc%2fpasswd',
    '/media/images%5cabc.webp',
  ])('404 with the error envelope for %s', async (url) => {
    const response = await server.inject({ method: 'GET', url });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ error: { code: 'not_found', message: expect.any(String) } });
    expect(response.body).not.toContain('top secret');
  });

  it.each(['/media/images/../../secret.txt', '/media/images\\..\\..\\secret.txt', '/media/../secret.txt'])(
    '404 for the raw path %s over a real socket',
    async (rawPath) => {
      if (!server.server.listening) await server.listen({ port: 0, host: '127.0.0.1' });
      const { port } = server.server.address() as AddressInfo;
      const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port, path: rawPath }, (res) => {
            let text = '';
            res.on('data', (chunk: Buffer) => {
              text += chunk.toString();
            });
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
          })
          .on('error', reject);
      });
      expect(status).toBe(404);
      expect(body).not.toContain('top secret');
    },
  );
});
