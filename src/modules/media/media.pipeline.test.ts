import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  garbage,
  redirectTo,
  serveBytes,
  slow,
  solidPng,
  startTestHost,
  type TestHost,
  twoToneJpeg,
} from '../../../test/helpers/image-host.js';
import { startS3Server, type TestS3Server } from '../../../test/helpers/s3-server.js';
import { createSafeFetch, type SafeFetch } from '../../platform/net/safe-fetch.js';
import { classifyAddress } from '../../platform/net/ssrf-guard.js';
import {
  DECODES_AT_ONCE,
  IMAGES_IN_FLIGHT,
  imagePipelineLoad,
  MediaError,
  type MediaErrorReason,
  type RehostDeps,
  rehostImages,
} from './media.pipeline.js';
import { createMediaStorage, type MediaStorage } from './media.storage.js';

const PUBLIC_URL = 'https://shop.example';

let host: TestHost;
let dataDir: string;
let storage: MediaStorage;
let fetchAllowed: SafeFetch;
let fetchGuarded: SafeFetch;
let jpeg: Buffer;

beforeAll(async () => {
  jpeg = await twoToneJpeg(3000, 1000, 6);
  const png = await solidPng(800, 600);
  const otherPng = await solidPng(300, 200, { r: 200, g: 10, b: 10 });
  const thirdPng = await solidPng(120, 90, { r: 10, g: 10, b: 200 });
  host = await startTestHost({
    '/photo.jpg': serveBytes(jpeg, 'image/jpeg'),
    '/photo.png': serveBytes(png, 'image/png'),
    '/other.png': serveBytes(otherPng, 'image/png'),
    '/third.png': serveBytes(thirdPng, 'image/png'),
    '/photo-with-params': serveBytes(png, 'IMAGE/PNG; charset=binary'),
    '/huge.jpg': serveBytes(garbage(1024 * 1024 + 1), 'image/jpeg'),
    '/huge-chunked.jpg': serveBytes(garbage(1536 * 1024), 'image/jpeg', { chunked: true }),
    '/page.html': serveBytes(Buffer.from('<html><body>not an image</body></html>'), 'text/html'),
    '/garbage.png': serveBytes(garbage(5000), 'image/png'),
    '/truncated.jpg': (req, res) => serveBytes(jpeg.subarray(0, 4000), 'image/jpeg')(req, res),
    '/svg.png': serveBytes(
      Buffer.from(
        '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>',
      ),
      'image/png',
    ),
    '/slow.jpg': slow(3_000),
    '/slow-ok.png': (req, res) => setTimeout(() => serveBytes(png, 'image/png')(req, res), 300),
    '/redirect.jpg': redirectTo('/photo.jpg'),
  });
  // The redirect to a private host is set up once the port is known.
  host.route('/to-private.jpg', redirectTo(`http://127.0.0.2:${host.port}/photo.jpg`));
  fetchAllowed = createSafeFetch({ allowPrivateUrls: true });
  // 127.0.0.1 plays a public host here; every other address keeps the real rules.
  fetchGuarded = createSafeFetch({
    classify: (address) => (address === '127.0.0.1' ? null : classifyAddress(address)),
  });
});

afterAll(async () => {
  await fetchAllowed?.close();
  await fetchGuarded?.close();
  await host?.close();
});

beforeEach(async () => {
  if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'emporium-pipeline-'));
  storage = createMediaStorage({ driver: 'local', dataDir, publicUrl: PUBLIC_URL });
});

afterAll(async () => {
  if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
});

function deps(extra: Partial<RehostDeps> = {}): RehostDeps {
  return { storage, fetch: fetchAllowed, maxBytes: 1024 * 1024, timeoutMs: 1_000, ...extra };
}

/** Every file under DATA_DIR/media, temporary ones included. */
async function mediaFiles(): Promise<string[]> {
  const root = path.join(dataDir, 'media');
  const entries = await fs.readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)))
    .sort();
}

async function rehostFailure(urls: string[], extra: Partial<RehostDeps> = {}): Promise<MediaError> {
  const error = await rehostImages(urls, deps(extra)).then(
    () => {
      throw new Error('expected rehostImages to fail');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MediaError);
  return error as MediaError;
}

describe('rehostImages', () => {
  it('auto-orients, bounds the longest side to 2048 px, converts to WebP without metadata', async () => {
    const { images } = await rehostImages([host.url('/photo.jpg')], deps());
    const [image] = images;
    expect(image).toMatchObject({ sourceUrl: host.url('/photo.jpg'), width: 683, height: 2048 });

    const file = await fs.readFile(path.join(dataDir, 'media', image?.key as string));
    const meta = await sharp(file).metadata();
    expect(meta.format).toBe('webp');
    expect([meta.width, meta.height]).toEqual([683, 2048]);
    expect(meta.exif).toBeUndefined();
    expect(meta.icc).toBeUndefined();
    expect(meta.orientation).toBeUndefined();
    // Orientation 6 turns the image a quarter clockwise: the red left half is now on top.
    const { data, info } = await sharp(file).raw().toBuffer({ resolveWithObject: true });
    const pixel = (x: number, y: number) => [
      ...data.subarray((y * info.width + x) * info.channels, (y * info.width + x) * info.channels + 3),
    ];
    const [topR, , topB] = pixel(340, 100);
    const [bottomR, , bottomB] = pixel(340, 1950);
    expect(topR).toBeGreaterThan(200);
    expect(topB).toBeLessThan(60);
    expect(bottomB).toBeGreaterThan(200);
    expect(bottomR).toBeLessThan(60);
  });

  it('stores content-addressed keys and returns public URLs, in input order', async () => {
    const urls = [host.url('/photo.png'), host.url('/photo.jpg'), host.url('/photo-with-params')];
    const { images } = await rehostImages(urls, deps());
    expect(images.map((i) => i.sourceUrl)).toEqual(urls);
    for (const image of images) {
      const bytes = await fs.readFile(path.join(dataDir, 'media', image.key));
      const hash = createHash('sha256').update(bytes).digest('hex');
      expect(image.key).toBe(`images/${hash}.webp`);
      expect(image.url).toBe(`${PUBLIC_URL}/media/images/${hash}.webp`);
    }
    // A PNG smaller than the bound keeps its size (no enlargement); the same PNG twice is one object.
    expect(images[0]).toMatchObject({ width: 800, height: 600 });
    expect(images[2]?.key).toBe(images[0]?.key);
    expect(await mediaFiles()).toHaveLength(2);
  });

  it('downloads a repeated URL once and follows redirects', async () => {
    const before = host.hits.get('/photo.jpg') ?? 0;
    const { images } = await rehostImages(
      [host.url('/photo.jpg'), host.url('/photo.jpg'), host.url('/redirect.jpg')],
      deps(),
    );
    expect(images).toHaveLength(3);
    expect(new Set(images.map((i) => i.key)).size).toBe(1);
    expect(host.hits.get('/photo.jpg')).toBe(before + 2);
  });

  it('downloads in parallel', async () => {
    const started = Date.now();
    await rehostImages(
      [1, 2, 3, 4].map((n) => `${host.url('/slow-ok.png')}?n=${n}`),
      deps(),
    );
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('holds at most IMAGES_IN_FLIGHT images and DECODES_AT_ONCE decodes per process, across calls', async () => {
    const most = { images: 0, decodes: 0, queued: 0 };
    const sample = setInterval(() => {
      const load = imagePipelineLoad();
      most.images = Math.max(most.images, load.images.active);
      most.decodes = Math.max(most.decodes, load.decodes.active);
      most.queued = Math.max(most.queued, load.images.waiting);
    }, 2);
    try {
      const burst = [1, 2, 3].map((call) =>
        rehostImages(
          [1, 2, 3, 4, 5, 6].map((n) => `${host.url('/slow-ok.png')}?call=${call}&n=${n}`),
          deps(),
        ),
      );
      const results = await Promise.all(burst);
      expect(results.flatMap((r) => r.images)).toHaveLength(18);
    } finally {
      clearInterval(sample);
    }
    expect(most.images).toBe(IMAGES_IN_FLIGHT);
    expect(most.decodes).toBeLessThanOrEqual(DECODES_AT_ONCE);
    expect(most.queued).toBeGreaterThan(0);
    expect(imagePipelineLoad()).toEqual({
      images: { active: 0, waiting: 0 },
      decodes: { active: 0, waiting: 0 },
    });
  });

  it('returns an empty list for no URLs', async () => {
    const result = await rehostImages([], deps());
    expect(result.images).toEqual([]);
    await result.discard();
  });

  const failures: [string, string, MediaErrorReason, RegExp][] = [
    ['a 404', '/missing.jpg', 'bad_status', /the server answered 404/],
    [
      'a body over the limit (Content-Length)',
      '/huge.jpg',
      'too_large',
      /exceeds the limit of 1048576 bytes/,
    ],
    ['a body over the limit (streamed)', '/huge-chunked.jpg', 'too_large', /exceeds the limit/],
    ['a non-image content type', '/page.html', 'bad_content_type', /"text\/html" is not accepted/],
    ['an image content type with garbage bytes', '/garbage.png', 'decode_failed', /could not be decoded/],
    ['SVG bytes sent as image/png', '/svg.png', 'unsupported_format', /unsupported format \(svg\)/],
    ['a slow server', '/slow.jpg', 'timeout', /no complete answer within 300 ms/],
  ];

  it.each(failures)('fails on %s, naming the URL', async (_name, urlPath, reason, message) => {
    const url = host.url(urlPath);
    const error = await rehostFailure([url], { timeoutMs: 300 });
    expect(error.reason).toBe(reason);
    expect(error.url).toBe(url);
    expect(error.message).toContain(url);
    expect(error.message).toMatch(message);
  });

  it.each([
    ['garbage bytes', '/garbage.png'],
    ['a truncated JPEG', '/truncated.jpg'],
  ])('names only the URL when the decoder fails on %s; the log keeps its message', async (_, urlPath) => {
    const url = host.url(urlPath);
    const warnings: { object: { url?: string; err?: Error }; message: string }[] = [];
    const logger = { warn: (object: object, message: string) => void warnings.push({ object, message }) };
    const error = await rehostFailure([url], { logger });
    expect(error.reason).toBe('decode_failed');
    expect(error.message).toBe(`image ${url} could not be decoded as an image`);
    const cause = error.cause as Error;
    expect(cause.message.length).toBeGreaterThan(0);
    expect(error.message).not.toContain(cause.message);
    expect(warnings).toEqual([{ object: { url, err: cause }, message: 'an image could not be decoded' }]);
  });

  it('fails on a URL that is not http(s)', async () => {
    const error = await rehostFailure(['ftp://example.com/a.jpg']);
    expect(error).toMatchObject({ reason: 'invalid_url', url: 'ftp://example.com/a.jpg' });
  });

  describe('with the SSRF guard on', () => {
    it('refuses a loopback URL', async () => {
      const fetch = createSafeFetch({});
      try {
        const error = await rehostFailure([host.url('/photo.jpg')], { fetch });
        expect(error.reason).toBe('blocked_address');
        expect(error.message).toBe(
          `could not download image ${host.url('/photo.jpg')}: 127.0.0.1 is a loopback address`,
        );
      } finally {
        await fetch.close();
      }
    });

    it('refuses a redirect to a private address, naming both URLs', async () => {
      const error = await rehostFailure([host.url('/to-private.jpg')], { fetch: fetchGuarded });
      expect(error.reason).toBe('blocked_address');
      expect(error.url).toBe(host.url('/to-private.jpg'));
      expect(error.message).toContain(host.url('/to-private.jpg'));
      expect(error.message).toContain(`(at http://127.0.0.2:${host.port}/photo.jpg)`);
    });

    it('accepts what the guard allows', async () => {
      const { images } = await rehostImages([host.url('/redirect.jpg')], deps({ fetch: fetchGuarded }));
      expect(images[0]).toMatchObject({ width: 683, height: 2048 });
    });
  });

  describe('all or nothing', () => {
    it('leaves nothing in storage when one of three images fails', async () => {
      const error = await rehostFailure([
        host.url('/photo.jpg'),
        host.url('/photo.png'),
        host.url('/garbage.png'),
      ]);
      expect(error.url).toBe(host.url('/garbage.png'));
      expect(await mediaFiles()).toEqual([]);
    });

    it('leaves nothing when the failure comes first and the good downloads are still running', async () => {
      const error = await rehostFailure([
        host.url('/missing.jpg'),
        host.url('/slow-ok.png'),
        host.url('/other.png'),
      ]);
      expect(error.url).toBe(host.url('/missing.jpg'));
      expect(await mediaFiles()).toEqual([]);
    });

    it('never deletes content that existed before the call', async () => {
      const first = await rehostImages([host.url('/photo.png')], deps());
      const existing = first.images[0]?.key as string;
      await rehostFailure([host.url('/photo.png'), host.url('/other.png'), host.url('/page.html')]);
      expect(await mediaFiles()).toEqual([existing]);
    });

    it('discard() deletes what the call created and keeps what existed', async () => {
      const first = await rehostImages([host.url('/photo.png')], deps());
      const second = await rehostImages(
        [host.url('/photo.png'), host.url('/other.png'), host.url('/third.png')],
        deps(),
      );
      expect(await mediaFiles()).toHaveLength(3);
      await second.discard();
      await second.discard();
      expect(await mediaFiles()).toEqual([first.images[0]?.key]);
    });

    it('rethrows storage errors as they are, after cleaning up', async () => {
      let puts = 0;
      const failing: MediaStorage = {
        ...storage,
        async put(key, bytes, type) {
          if (++puts === 2) throw new Error('disk full');
          return storage.put(key, bytes, type);
        },
      };
      const error = await rehostImages(
        [host.url('/photo.png'), host.url('/other.png')],
        deps({ storage: failing, concurrency: 1 }),
      ).catch((e: unknown) => e);
      expect(error).not.toBeInstanceOf(MediaError);
      expect((error as Error).message).toBe('disk full');
      expect(await mediaFiles()).toEqual([]);
    });
  });
});

describe('rehostImages on S3 storage (s3rver)', () => {
  let s3: TestS3Server;
  let client: S3Client;
  let s3Storage: MediaStorage;

  beforeAll(async () => {
    s3 = await startS3Server();
    client = new S3Client({
      region: s3.region,
      endpoint: s3.endpoint,
      forcePathStyle: true,
      credentials: s3.credentials,
    });
    s3Storage = createMediaStorage({
      driver: 's3',
      dataDir: '/unused',
      publicUrl: 'http://unused',
      s3: {
        bucket: s3.bucket,
        endpoint: s3.endpoint,
        region: s3.region,
        publicUrl: 'https://cdn.example',
        credentials: s3.credentials,
      },
    });
  });
  afterAll(async () => {
    await s3Storage?.close();
    client?.destroy();
    await s3?.close();
  });

  const keys = async () =>
    ((await client.send(new ListObjectsV2Command({ Bucket: s3.bucket }))).Contents ?? [])
      .map((o) => o.Key)
      .sort();

  it('stores WebP objects and rolls back on failure', async () => {
    const { images } = await rehostImages([host.url('/photo.jpg')], deps({ storage: s3Storage }));
    expect(images[0]?.url).toBe(`https://cdn.example/${images[0]?.key}`);
    const object = await client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: images[0]?.key }));
    expect(object.ContentType).toBe('image/webp');
    const bytes = Buffer.from(
      await (object.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray(),
    );
    expect(await sharp(bytes).metadata()).toMatchObject({ format: 'webp', width: 683, height: 2048 });

    await expect(
      rehostImages(
        [host.url('/photo.jpg'), host.url('/photo.png'), host.url('/missing.jpg')],
        deps({ storage: s3Storage }),
      ),
    ).rejects.toBeInstanceOf(MediaError);
    expect(await keys()).toEqual([images[0]?.key]);
  });
});
