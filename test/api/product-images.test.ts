import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import {
  type Client,
  client,
  createProduct,
  type ProductData,
  UNLIMITED,
} from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import {
  type RouteHandler,
  serveBytes,
  solidPng,
  startTestHost,
  type TestHost,
  twoToneJpeg,
} from '../helpers/image-host.js';

const PUBLIC_URL = 'https://shop.example.test';
const MEDIA_URL = new RegExp(`^${PUBLIC_URL.replaceAll('.', '\\.')}/media/images/[0-9a-f]{64}\\.webp$`);

let app: TestApp;
let strictApp: TestApp;
let host: TestHost;
let api: Client;
let strictApi: Client;
let dataDir: string;
let strictDataDir: string;

/** Every file under DATA_DIR/media, relative to it. */
function mediaFiles(dir: string): string[] {
  const root = path.join(dir, 'media');
  if (!fs.existsSync(root)) return [];
  return (fs.readdirSync(root, { recursive: true }) as string[])
    .filter((f) => fs.statSync(path.join(root, f)).isFile())
    .sort();
}

/** What DATA_DIR/media held when the late 404 was sent. */
let filesWhenFailing: string[] = [];

/** Answers 404 after a delay, so the other downloads of the request finish and are stored first. */
const lateNotFound =
  (delayMs: number): RouteHandler =>
  (_req, res) => {
    setTimeout(() => {
      filesWhenFailing = mediaFiles(dataDir);
      res.writeHead(404, { 'content-type': 'text/plain' }).end('gone');
    }, delayMs);
  };

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'emporium-media-'));
  strictDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'emporium-media-strict-'));
  host = await startTestHost({
    '/photo.jpg': serveBytes(await twoToneJpeg(3000, 1500), 'image/jpeg'),
    '/rotated.jpg': serveBytes(await twoToneJpeg(400, 200, 6), 'image/jpeg'),
    '/logo.png': serveBytes(await solidPng(64, 32), 'image/png'),
    '/fresh-a.png': serveBytes(await solidPng(50, 50, { r: 1, g: 2, b: 3 }), 'image/png'),
    '/fresh-b.jpg': serveBytes(await twoToneJpeg(90, 60), 'image/jpeg'),
    '/patched.png': serveBytes(await solidPng(20, 20, { r: 9, g: 9, b: 9 }), 'image/png'),
    '/page.html': serveBytes(Buffer.from('<html></html>'), 'text/html'),
    '/late-404.jpg': lateNotFound(400),
    '/clip.mp4': serveBytes(Buffer.from('not really a video'), 'video/mp4'),
    '/corrupt.png': serveBytes(Buffer.from('definitely not a PNG, whatever the header says'), 'image/png'),
  });
  app = await buildTestApp({
    config: { ...UNLIMITED, allowPrivateUrls: true, dataDir, publicUrl: PUBLIC_URL },
  });
  strictApp = await buildTestApp({
    testDatabase: app.testDatabase,
    config: { ...UNLIMITED, allowPrivateUrls: false, dataDir: strictDataDir, publicUrl: PUBLIC_URL },
  });
  const { key } = await createStoreWithKey(app);
  api = client(app, key);
  strictApi = client(strictApp, key);
});

afterAll(async () => {
  await strictApp?.close();
  await app?.close();
  await host?.close();
  for (const dir of [dataDir, strictDataDir]) if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const total = async () => (await api.get('/api/v1/products?limit=1')).json().meta.pagination.total as number;

/** Fetches a media URL through the app and decodes it. */
async function fetchMedia(url: string) {
  const res = await app.server.inject({ method: 'GET', url: new URL(url).pathname });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toBe('image/webp');
  const bytes = res.rawPayload;
  return { bytes, meta: await sharp(bytes).metadata() };
}

describe('POST /api/v1/products with download_images: true', () => {
  it('re-hosts a JPEG and a PNG as WebP under PUBLIC_URL/media, served by GET /media/…', async () => {
    const res = await api.post('/api/v1/products', {
      name: 'Photographed',
      price: '5.00',
      download_images: true,
      images: [
        { url: host.url('/photo.jpg'), alt: 'photo' },
        { url: host.url('/logo.png'), alt: 'logo', is_primary: true },
      ],
    });
    expect(res.statusCode).toBe(201);
    const p = res.json().data as ProductData;
    expect(p.images).toEqual([
      {
        id: expect.any(String),
        url: expect.stringMatching(MEDIA_URL),
        alt: 'photo',
        is_primary: false,
        position: 0,
      },
      {
        id: expect.any(String),
        url: expect.stringMatching(MEDIA_URL),
        alt: 'logo',
        is_primary: true,
        position: 1,
      },
    ]);
    expect(p.images[0]?.url).not.toBe(p.images[1]?.url);
    expect((await api.get(`/api/v1/products/${p.id}`)).json().data.images).toEqual(p.images);

    const photo = await fetchMedia(p.images[0]?.url as string);
    expect(photo.meta).toMatchObject({ format: 'webp', width: 2048, height: 1024 });
    const logo = await fetchMedia(p.images[1]?.url as string);
    expect(logo.meta).toMatchObject({ format: 'webp', width: 64, height: 32 });
    // Stored content-addressed in DATA_DIR/media.
    for (const image of p.images) {
      const key = new URL(image.url).pathname.slice('/media/'.length);
      expect(mediaFiles(dataDir)).toContain(key);
    }
  });

  it('auto-rotates, strips metadata and downloads a repeated URL once', async () => {
    const before = host.hits.get('/rotated.jpg') ?? 0;
    const p = await createProduct(api, {
      download_images: true,
      images: [{ url: host.url('/rotated.jpg') }, { url: host.url('/rotated.jpg'), alt: 'again' }],
    });
    expect(host.hits.get('/rotated.jpg')).toBe(before + 1);
    expect(p.images[0]?.url).toBe(p.images[1]?.url);
    const { meta } = await fetchMedia(p.images[0]?.url as string);
    expect(meta).toMatchObject({ format: 'webp', width: 200, height: 400 });
    expect(meta.exif).toBeUndefined();
    expect(meta.orientation).toBeUndefined();
  });

  it('refuses the request naming the failing URL, creating nothing and leaving no file', async () => {
    const before = await total();
    const files = mediaFiles(dataDir);
    const failing = host.url('/late-404.jpg');
    const res = await api.post('/api/v1/products', {
      name: 'Half broken',
      price: '5.00',
      download_images: true,
      images: [{ url: host.url('/fresh-a.png') }, { url: failing }, { url: host.url('/fresh-b.jpg') }],
    });
    expect(res.statusCode).toBe(400);
    const { error } = res.json();
    expect(error.code).toBe('invalid_request');
    expect(error.message).toContain(failing);
    expect(host.hits.get('/fresh-a.png')).toBe(1);
    expect(host.hits.get('/fresh-b.jpg')).toBe(1);
    // The good images had been stored before the failure: they were cleaned up, not skipped.
    expect(filesWhenFailing).toHaveLength(files.length + 2);
    expect(await total()).toBe(before);
    expect(mediaFiles(dataDir)).toEqual(files);
  });

  it.each([
    ['a 404', '/missing.jpg'],
    ['a non-image content type', '/page.html'],
  ])('refuses %s with 400 naming the URL', async (_, urlPath) => {
    const before = await total();
    const res = await api.post('/api/v1/products', {
      name: 'Broken',
      price: '5.00',
      download_images: true,
      images: [{ url: host.url(urlPath) }],
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toContain(host.url(urlPath));
    expect(await total()).toBe(before);
  });

  it("refuses an image the decoder cannot read naming the URL, never the decoder's message", async () => {
    const url = host.url('/corrupt.png');
    const res = await api.post('/api/v1/products', {
      name: 'Corrupt',
      price: '5.00',
      download_images: true,
      images: [{ url }],
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: {
        code: 'invalid_request',
        message: `image ${url} could not be decoded as an image`,
        details: [{ field: 'images', message: `decode_failed: ${url}` }],
      },
    });
    expect(res.body).not.toMatch(/vips|buffer|unsupported image format/i);
  });

  it('refuses a loopback URL when private URLs are not allowed, fetching and storing nothing', async () => {
    const before = (await strictApi.get('/api/v1/products?limit=1')).json().meta.pagination.total;
    const hits = host.hits.get('/logo.png') ?? 0;
    const res = await strictApi.post('/api/v1/products', {
      name: 'Sneaky',
      price: '5.00',
      download_images: true,
      images: [{ url: host.url('/logo.png') }],
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('invalid_request');
    expect(res.json().error.message).toContain(host.url('/logo.png'));
    expect(host.hits.get('/logo.png') ?? 0).toBe(hits);
    expect(mediaFiles(strictDataDir)).toEqual([]);
    expect((await strictApi.get('/api/v1/products?limit=1')).json().meta.pagination.total).toBe(before);
  });

  it('never fetches video items and returns them under media', async () => {
    const clip = host.url('/clip.mp4');
    const p = await createProduct(api, {
      download_images: true,
      images: [{ url: clip, media_type: 'video' }, { url: host.url('/logo.png') }],
    });
    expect(host.hits.get('/clip.mp4') ?? 0).toBe(0);
    expect(p.media).toEqual([{ id: expect.any(String), url: clip, media_type: 'video' }]);
    expect(p.images).toHaveLength(1);
    expect(p.images[0]).toMatchObject({ url: expect.stringMatching(MEDIA_URL), is_primary: true });

    const onlyVideo = await createProduct(api, {
      download_images: true,
      images: [{ url: 'https://videos.example.com/watch?v=1', media_type: 'video' }],
    });
    expect(onlyVideo.images).toEqual([]);
    expect(onlyVideo.media).toEqual([
      { id: expect.any(String), url: 'https://videos.example.com/watch?v=1', media_type: 'video' },
    ]);
  });

  it('keeps URLs as given and fetches nothing without download_images', async () => {
    const hits = host.hits.get('/photo.jpg') ?? 0;
    const p = await createProduct(api, { images: [{ url: host.url('/photo.jpg') }] });
    expect(p.images[0]?.url).toBe(host.url('/photo.jpg'));
    expect(host.hits.get('/photo.jpg') ?? 0).toBe(hits);
  });
});

describe('PATCH /api/v1/products/{id} with download_images: true', () => {
  it('re-hosts the replacing images, and a failure keeps the old list', async () => {
    const p = await createProduct(api, { images: [{ url: 'https://cdn.example.com/old.jpg' }] });
    const ok = await api.patch(`/api/v1/products/${p.id}`, {
      download_images: true,
      images: [{ url: host.url('/patched.png') }],
    });
    expect(ok.statusCode).toBe(200);
    const images = ok.json().data.images;
    expect(images).toEqual([
      expect.objectContaining({ url: expect.stringMatching(MEDIA_URL), is_primary: true }),
    ]);
    await fetchMedia(images[0].url);

    const files = mediaFiles(dataDir);
    const failed = await api.patch(`/api/v1/products/${p.id}`, {
      download_images: true,
      images: [{ url: host.url('/missing-too.jpg') }],
    });
    expect(failed.statusCode).toBe(400);
    expect(failed.json().error.message).toContain(host.url('/missing-too.jpg'));
    expect((await api.get(`/api/v1/products/${p.id}`)).json().data.images).toEqual(images);
    expect(mediaFiles(dataDir)).toEqual(files);
  });
});
