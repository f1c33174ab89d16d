import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { S3Client, S3ClientConfig } from '@aws-sdk/client-s3';

/**
 * Where media objects live. Keys are relative, slash-separated paths (`images/<sha256>.webp`);
 * objects are immutable and content-addressed, so `put` of an existing key leaves it as it is and
 * says so (`created: false`), and callers only ever delete what they created.
 */
export interface MediaStorage {
  readonly driver: 'local' | 's3';
  put(key: string, bytes: Buffer | Uint8Array, contentType: string): Promise<{ created: boolean }>;
  /** Deletes the object; a missing object is not an error. */
  delete(key: string): Promise<void>;
  exists(key: string): Promise<boolean>;
  /** The URL clients fetch the object from. */
  publicUrl(key: string): string;
  close(): Promise<void>;
}

export interface S3StorageOptions {
  bucket: string;
  /** For S3-compatible stores (MinIO, R2, …); absent for AWS S3. */
  endpoint?: string;
  region: string;
  /** Base URL under which objects are served: `${publicUrl}/${key}`. */
  publicUrl: string;
  /** Path-style addressing (`endpoint/bucket/key`); default: true when `endpoint` is set. */
  forcePathStyle?: boolean;
  /** Default: the standard AWS provider chain (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, profiles…). */
  credentials?: S3ClientConfig['credentials'];
}

export interface MediaStorageOptions {
  driver: 'local' | 's3';
  /** DATA_DIR: local media lives in `<dataDir>/media`. */
  dataDir: string;
  /** PUBLIC_URL: local media is served at `<publicUrl>/media/<key>`. */
  publicUrl: string;
  s3?: S3StorageOptions;
}

export const MEDIA_CACHE_CONTROL = 'public, max-age=31536000, immutable';

const KEY_PATTERN = /^[A-Za-z0-9_-][A-Za-z0-9._-]*(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/;

/**
 * A key is relative, slash-separated, every segment starting with a letter, digit, `_` or `-` (so no
 * `.`/`..` segment, no hidden or temporary file), made of `[A-Za-z0-9._-]`, at most 512 characters.
 */
export function isValidMediaKey(key: string): boolean {
  return key.length <= 512 && KEY_PATTERN.test(key) && !key.includes('..');
}

function assertKey(key: string): void {
  if (!isValidMediaKey(key)) throw new Error(`invalid media key "${key.slice(0, 100)}"`);
}

/** The folder of local media under DATA_DIR. */
export function localMediaRoot(dataDir: string): string {
  return path.join(dataDir, 'media');
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

async function fileExists(file: string): Promise<boolean> {
  try {
    return (await fs.stat(file)).isFile();
  } catch {
    return false;
  }
}

/**
 * The storage cannot take an object: it is full (ENOSPC, EDQUOT) or not writable (EROFS, EACCES,
 * EPERM). The request cannot succeed until an operator acts; callers answer 507.
 */
export class MediaStorageError extends Error {
  constructor(
    readonly reason: 'full' | 'not_writable',
    options: { cause: unknown },
  ) {
    super(`media storage is ${reason === 'full' ? 'full' : 'not writable'}`, options);
    this.name = 'MediaStorageError';
  }
}

const FULL = new Set(['ENOSPC', 'EDQUOT']);
const NOT_WRITABLE = new Set(['EROFS', 'EACCES', 'EPERM']);

/** A file-system error as the storage's own (full, not writable), or as it is. */
function storageFailure(error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code ?? '';
  if (FULL.has(code)) return new MediaStorageError('full', { cause: error });
  if (NOT_WRITABLE.has(code)) return new MediaStorageError('not_writable', { cause: error });
  return error;
}

/** Writes `bytes` to a new file and flushes it to the disk. */
async function writeDurably(file: string, bytes: Buffer | Uint8Array): Promise<void> {
  const handle = await fs.open(file, 'wx', 0o644);
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Makes the written temporary file the object at `file`, unless another writer made it first. */
async function publish(temp: string, file: string): Promise<{ created: boolean }> {
  try {
    // link() fails if the target exists: exactly one of concurrent writers of a key "creates" it.
    await fs.link(temp, file);
    return { created: true };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return { created: false };
    // File systems without hard links: check, then rename (atomic replace of identical content).
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP' || code === 'EXDEV') {
      if (await fileExists(file)) return { created: false };
      await fs.rename(temp, file);
      return { created: true };
    }
    throw error;
  }
}

/**
 * Files under `root`; writes are atomic (temporary file, then link/rename), never partial. A full or
 * read-only disk throws MediaStorageError, and no temporary file outlives a put, whatever failed.
 */
export function createLocalStorage(options: { root: string; publicUrl: string }): MediaStorage {
  const root = path.resolve(options.root);
  const base = `${trimSlash(options.publicUrl)}/media`;
  const fileOf = (key: string) => {
    assertKey(key);
    return path.join(root, ...key.split('/'));
  };

  return {
    driver: 'local',
    async put(key, bytes, _contentType) {
      const file = fileOf(key);
      if (await fileExists(file)) return { created: false };
      const dir = path.dirname(file);
      const temp = path.join(dir, `.tmp-${randomBytes(8).toString('hex')}`);
      try {
        await fs.mkdir(dir, { recursive: true });
        await writeDurably(temp, bytes);
        return await publish(temp, file);
      } catch (error) {
        throw storageFailure(error);
      } finally {
        // On every path: a partial file left by a full disk would keep the space it took.
        await fs.rm(temp, { force: true }).catch(() => {});
      }
    },
    async delete(key) {
      await fs.rm(fileOf(key), { force: true });
    },
    exists: (key) => fileExists(fileOf(key)),
    publicUrl: (key) => `${base}/${key}`,
    close: async () => {},
  };
}

function statusOf(error: unknown): number | undefined {
  return (error as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata?.httpStatusCode;
}

function isNotFound(error: unknown): boolean {
  const name = (error as Error | undefined)?.name;
  return statusOf(error) === 404 || name === 'NotFound' || name === 'NoSuchKey';
}

/** Any S3-compatible store (AWS S3, MinIO, R2, …). Objects are written with a year-long immutable cache. */
export function createS3Storage(options: S3StorageOptions): MediaStorage {
  // The SDK is large (memory and start-up time): it is loaded on first use, and only by this driver.
  const sdk = import('@aws-sdk/client-s3');
  let client: S3Client | undefined;
  const s3 = async () => {
    const { S3Client } = await sdk;
    client ??= new S3Client({
      region: options.region,
      ...(options.endpoint ? { endpoint: options.endpoint } : {}),
      forcePathStyle: options.forcePathStyle ?? options.endpoint !== undefined,
      ...(options.credentials ? { credentials: options.credentials } : {}),
    });
    return { client, sdk: await sdk };
  };
  const Bucket = options.bucket;
  const base = trimSlash(options.publicUrl);
  let conditionalWrites = true;

  const exists = async (key: string) => {
    assertKey(key);
    try {
      const { client, sdk } = await s3();
      await client.send(new sdk.HeadObjectCommand({ Bucket, Key: key }));
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  };

  return {
    driver: 's3',
    async put(key, bytes, contentType) {
      if (await exists(key)) return { created: false };
      const { client, sdk } = await s3();
      const put = (conditional: boolean) =>
        client.send(
          new sdk.PutObjectCommand({
            Bucket,
            Key: key,
            Body: bytes,
            ContentType: contentType,
            CacheControl: MEDIA_CACHE_CONTROL,
            // Create-only: a concurrent writer of the same key that won the race makes this a 412.
            ...(conditional ? { IfNoneMatch: '*' } : {}),
          }),
        );
      try {
        await put(conditionalWrites);
        return { created: true };
      } catch (error) {
        const status = statusOf(error);
        if (status === 412) return { created: false };
        if (conditionalWrites && (status === 501 || (error as Error).name === 'NotImplemented')) {
          // Stores without conditional writes: HeadObject above is the only check.
          conditionalWrites = false;
          await put(false);
          return { created: true };
        }
        throw error;
      }
    },
    async delete(key) {
      assertKey(key);
      const { client, sdk } = await s3();
      await client.send(new sdk.DeleteObjectCommand({ Bucket, Key: key }));
    },
    exists,
    publicUrl: (key) => `${base}/${key}`,
    close: async () => client?.destroy(),
  };
}

/** The storage the configuration asks for. */
export function createMediaStorage(options: MediaStorageOptions): MediaStorage {
  if (options.driver === 's3') {
    if (!options.s3)
      throw new Error('MEDIA_DRIVER=s3 needs the S3 settings (S3_BUCKET, S3_REGION, S3_PUBLIC_URL)');
    return createS3Storage(options.s3);
  }
  return createLocalStorage({ root: localMediaRoot(options.dataDir), publicUrl: options.publicUrl });
}
