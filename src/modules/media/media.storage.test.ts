import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3Server, type TestS3Server } from '../../../test/helpers/s3-server.js';
import {
  createMediaStorage,
  createS3Storage,
  isValidMediaKey,
  MEDIA_CACHE_CONTROL,
  type MediaStorage,
} from './media.storage.js';

describe('isValidMediaKey', () => {
  it.each(['images/abc.webp', 'a', 'a/b/c.d', 'images/0f_-x.webp'])('accepts %s', (key) => {
    expect(isValidMediaKey(key)).toBe(true);
  });
  it.each([
    '',
    '/etc/passwd',
    '../x',
    'images/../x',
    'images/..',
    'images/.tmp-1',
    'images//x',
    'images/',
    'images\\x',
    'images/%2e%2e',
    'images/a b',
    'a..b',
    'x'.repeat(513),
  ])('rejects %j', (key) => {
    expect(isValidMediaKey(key)).toBe(false);
  });
});

/** The same behaviour from both drivers. */
function storageContract(
  name: string,
  open: () => Promise<{ storage: MediaStorage; read(key: string): Promise<Buffer | undefined> }>,
) {
  describe(name, () => {
    let storage: MediaStorage;
    let read: (key: string) => Promise<Buffer | undefined>;

    beforeAll(async () => {
      ({ storage, read } = await open());
    });
    afterAll(async () => {
      await storage?.close();
    });

    it('creates an object once, then reports it existed', async () => {
      const key = `images/${name}-once.webp`;
      expect(await storage.exists(key)).toBe(false);
      expect(await storage.put(key, Buffer.from('first'), 'image/webp')).toEqual({ created: true });
      expect(await storage.exists(key)).toBe(true);
      expect(await storage.put(key, Buffer.from('first'), 'image/webp')).toEqual({ created: false });
      expect((await read(key))?.toString()).toBe('first');
    });

    it('deletes, and deleting a missing object is not an error', async () => {
      const key = `images/${name}-delete.webp`;
      await storage.put(key, Buffer.from('x'), 'image/webp');
      await storage.delete(key);
      expect(await storage.exists(key)).toBe(false);
      await expect(storage.delete(key)).resolves.toBeUndefined();
    });

    it('refuses invalid keys', async () => {
      await expect(storage.put('../escape.webp', Buffer.from('x'), 'image/webp')).rejects.toThrow(
        /invalid media key/,
      );
      await expect(storage.delete('/abs')).rejects.toThrow(/invalid media key/);
    });
  });
}

describe('local storage', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'emporium-media-'));
  });
  afterAll(async () => {
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  storageContract('local', async () => {
    const storage = createMediaStorage({ driver: 'local', dataDir, publicUrl: 'https://shop.example/' });
    return {
      storage,
      read: (key) => fs.readFile(path.join(dataDir, 'media', key)).catch(() => undefined),
    };
  });

  it('writes under DATA_DIR/media and serves at PUBLIC_URL/media', async () => {
    const storage = createMediaStorage({ driver: 'local', dataDir, publicUrl: 'https://shop.example/' });
    await storage.put('images/where.webp', Buffer.from('here'), 'image/webp');
    expect(await fs.readFile(path.join(dataDir, 'media', 'images', 'where.webp'), 'utf8')).toBe('here');
    expect(storage.publicUrl('images/where.webp')).toBe('https://shop.example/media/images/where.webp');
  });

  it('lets exactly one of concurrent writers of a key create it, and leaves no temporary file', async () => {
    const storage = createMediaStorage({ driver: 'local', dataDir, publicUrl: 'http://x' });
    const results = await Promise.all(
      Array.from({ length: 10 }, () => storage.put('images/race.webp', Buffer.from('same'), 'image/webp')),
    );
    expect(results.filter((r) => r.created)).toHaveLength(1);
    const files = await fs.readdir(path.join(dataDir, 'media', 'images'));
    expect(files.filter((f) => f.startsWith('.'))).toEqual([]);
  });
});

describe('S3 storage (s3rver)', () => {
  let s3: TestS3Server;
  let client: S3Client;
  beforeAll(async () => {
    s3 = await startS3Server();
    client = new S3Client({
      region: s3.region,
      endpoint: s3.endpoint,
      forcePathStyle: true,
      credentials: s3.credentials,
    });
  });
  afterAll(async () => {
    client?.destroy();
    await s3?.close();
  });

  const open = () =>
    createMediaStorage({
      driver: 's3',
      dataDir: '/nonexistent',
      publicUrl: 'http://unused',
      s3: {
        bucket: s3.bucket,
        endpoint: s3.endpoint,
        region: s3.region,
        publicUrl: 'https://cdn.example/media/',
        credentials: s3.credentials,
      },
    });

  storageContract('s3', async () => ({
    storage: open(),
    read: async (key) => {
      try {
        const object = await client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }));
        return Buffer.from(
          await (object.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray(),
        );
      } catch {
        return undefined;
      }
    },
  }));

  it('stores the content type and the immutable cache header, and builds URLs on S3_PUBLIC_URL', async () => {
    const storage = open();
    await storage.put('images/headers.webp', Buffer.from('webp'), 'image/webp');
    const object = await client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: 'images/headers.webp' }));
    expect(object.ContentType).toBe('image/webp');
    expect(object.CacheControl).toBe(MEDIA_CACHE_CONTROL);
    expect(storage.publicUrl('images/headers.webp')).toBe('https://cdn.example/media/images/headers.webp');
    await storage.close();
  });

  it('reports errors of the store (unknown bucket)', async () => {
    const storage = createS3Storage({
      bucket: 'no-such-bucket',
      endpoint: s3.endpoint,
      region: s3.region,
      publicUrl: 'https://cdn.example',
      credentials: s3.credentials,
    });
    await expect(storage.put('images/x.webp', Buffer.from('x'), 'image/webp')).rejects.toThrow();
    await storage.close();
  });

  it('needs the S3 settings when the driver is s3', () => {
    expect(() => createMediaStorage({ driver: 's3', dataDir: '/x', publicUrl: 'http://x' })).toThrow(
      /S3_BUCKET/,
    );
  });
});
