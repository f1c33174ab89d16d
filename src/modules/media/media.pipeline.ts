import { createHash } from 'node:crypto';
import {
  DEFAULT_MAX_BYTES,
  DEFAULT_TIMEOUT_MS,
  displayUrl,
  OutboundError,
  type OutboundErrorReason,
  type SafeFetch,
} from '../../platform/net/safe-fetch.js';
import { Semaphore } from '../../platform/semaphore.js';
import type { MediaStorage } from './media.storage.js';

/**
 * Image re-hosting: download every URL (in parallel, through the SSRF-guarded fetch), convert to WebP
 * (auto-oriented, metadata stripped, longest side at most 2048 px), store content-addressed. All or
 * nothing: when one image fails, what this call created is deleted and a MediaError names the URL.
 */

/** Response content types accepted as images. SVG is not: it is a document, not a raster. */
/**
 * sharp (libvips) is loaded when the first image is converted, not at start-up. Its operation cache
 * is off: re-hosted images are never converted twice, and the cache would keep decoded pixels.
 */
let sharpModule: Promise<typeof import('sharp')['default']> | undefined;
function loadSharp() {
  sharpModule ??= import('sharp').then(({ default: sharp }) => {
    sharp.cache(false);
    return sharp;
  });
  return sharpModule;
}

/**
 * Per process, whatever the number of requests: images held in memory at once (each download is at
 * most 20 MiB), and of those, images being decoded by libvips at once (a 100-megapixel decode holds
 * hundreds of MiB). Bursts queue instead of growing the process; see docs/decisions.md.
 */
export const IMAGES_IN_FLIGHT = 4;
export const DECODES_AT_ONCE = 2;
const imageSlots = new Semaphore(IMAGES_IN_FLIGHT);
const decodeSlots = new Semaphore(DECODES_AT_ONCE);

/** How busy the process-wide bounds are: images held and decodes, each as running and waiting. */
export function imagePipelineLoad() {
  return { images: imageSlots.load, decodes: decodeSlots.load };
}

export const IMAGE_CONTENT_TYPES: ReadonlySet<string> = new Set([
  'image/jpeg',
  'image/jpg',
  'image/pjpeg',
  'image/png',
  'image/apng',
  'image/webp',
  'image/gif',
  'image/avif',
  'image/tiff',
  'image/heic',
  'image/heif',
]);

/** Formats sharp may decode, whatever the server claimed (no SVG, PDF or libvips formats). */
const DECODABLE_FORMATS: ReadonlySet<string> = new Set([
  'jpeg',
  'png',
  'webp',
  'gif',
  'avif',
  'tiff',
  'heif',
]);

export const MAX_IMAGE_DIMENSION = 2048;
/** Decompression-bomb guard: larger images are refused before they are decoded. */
export const MAX_INPUT_PIXELS = 100_000_000;

export type MediaErrorReason = OutboundErrorReason | 'unsupported_format' | 'decode_failed';

/** One image could not be re-hosted; the message names its URL. Maps to 400 invalid_request. */
export class MediaError extends Error {
  constructor(
    /** The URL as the caller gave it. */
    readonly url: string,
    readonly reason: MediaErrorReason,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'MediaError';
  }
}

export interface RehostedImage {
  sourceUrl: string;
  url: string;
  key: string;
  width: number;
  height: number;
}

export interface RehostResult {
  /** One entry per input URL, in input order (a repeated URL is downloaded once). */
  images: RehostedImage[];
  /** Deletes the objects this call created (not those that already existed). Never rejects. */
  discard(): Promise<void>;
}

export interface RehostDeps {
  storage: MediaStorage;
  /** An SSRF-guarded fetch (createSafeFetch({ allowPrivateUrls })). */
  fetch: SafeFetch;
  timeoutMs?: number;
  maxBytes?: number;
  maxDimension?: number;
  maxInputPixels?: number;
  /** Downloads at a time. Default 8. */
  concurrency?: number;
  /** WebP quality. Default 82. */
  quality?: number;
  logger?: { warn(object: object, message: string): void };
}

const ACCEPT = 'image/avif,image/webp,image/png,image/jpeg,image/*;q=0.8';

async function runLimited<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
}

function downloadError(url: string, error: OutboundError): MediaError {
  const source = displayUrl(url);
  const where = error.url !== source ? ` (at ${error.url})` : '';
  return new MediaError(url, error.reason, `could not download image ${source}: ${error.detail}${where}`, {
    cause: error,
  });
}

/**
 * The decoder's own message (libvips: file names, buffer offsets, library internals) is for the log,
 * not for the client: the error names the URL only and keeps the decoder's error as its cause.
 */
function decodeError(url: string, cause: unknown): MediaError {
  return new MediaError(url, 'decode_failed', `image ${displayUrl(url)} could not be decoded as an image`, {
    cause,
  });
}

/** Decodes, auto-orients, bounds and re-encodes one image as WebP. */
export function convertToWebp(
  url: string,
  input: Buffer,
  options: { maxDimension?: number; maxInputPixels?: number; quality?: number } = {},
): Promise<{ data: Buffer; width: number; height: number }> {
  return decodeSlots.run(() => decodeAndEncode(url, input, options));
}

async function decodeAndEncode(
  url: string,
  input: Buffer,
  options: { maxDimension?: number; maxInputPixels?: number; quality?: number },
): Promise<{ data: Buffer; width: number; height: number }> {
  const source = displayUrl(url);
  const sharpOptions = {
    failOn: 'error' as const,
    limitInputPixels: options.maxInputPixels ?? MAX_INPUT_PIXELS,
  };
  let format: string | undefined;
  try {
    format = (await (await loadSharp())(input, sharpOptions).metadata()).format;
  } catch (error) {
    throw decodeError(url, error);
  }
  if (!format || !DECODABLE_FORMATS.has(format)) {
    throw new MediaError(
      url,
      'unsupported_format',
      `image ${source} is in an unsupported format (${format})`,
    );
  }
  const max = options.maxDimension ?? MAX_IMAGE_DIMENSION;
  try {
    const sharp = await loadSharp();
    const { data, info } = await sharp(input, sharpOptions)
      .rotate()
      .resize({ width: max, height: max, fit: 'inside', withoutEnlargement: true })
      .webp({ quality: options.quality ?? 82 })
      .toBuffer({ resolveWithObject: true });
    return { data, width: info.width, height: info.height };
  } catch (error) {
    throw decodeError(url, error);
  }
}

export function mediaKeyFor(webp: Buffer): string {
  return `images/${createHash('sha256').update(webp).digest('hex')}.webp`;
}

async function deleteAll(storage: MediaStorage, keys: string[], logger: RehostDeps['logger']): Promise<void> {
  const results = await Promise.allSettled(keys.map((key) => storage.delete(key)));
  results.forEach((result, i) => {
    if (result.status === 'rejected') {
      logger?.warn({ err: result.reason, key: keys[i] }, 'could not delete a media object');
    }
  });
}

/**
 * Downloads, converts and stores every image; throws MediaError (naming the URL) for the first image
 * that fails, after deleting what this call created. Other errors (storage) are thrown as they are.
 */
export async function rehostImages(urls: string[], deps: RehostDeps): Promise<RehostResult> {
  const { storage } = deps;
  const unique = [...new Set(urls)];
  const controller = new AbortController();
  const created: string[] = [];
  const done = new Map<string, RehostedImage>();
  let failure: unknown;
  let failed = false;

  const rehostOne = async (sourceUrl: string) => {
    let response: { body: Buffer };
    try {
      response = await deps.fetch(sourceUrl, {
        headers: { accept: ACCEPT },
        timeoutMs: deps.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        maxBytes: deps.maxBytes ?? DEFAULT_MAX_BYTES,
        acceptContentType: (type) => IMAGE_CONTENT_TYPES.has(type),
        signal: controller.signal,
      });
    } catch (error) {
      throw error instanceof OutboundError ? downloadError(sourceUrl, error) : error;
    }
    const image = await convertToWebp(sourceUrl, response.body, deps);
    if (controller.signal.aborted) return;
    const key = mediaKeyFor(image.data);
    const { created: isNew } = await storage.put(key, image.data, 'image/webp');
    if (isNew) created.push(key);
    done.set(sourceUrl, {
      sourceUrl,
      url: storage.publicUrl(key),
      key,
      width: image.width,
      height: image.height,
    });
  };

  await runLimited(unique, deps.concurrency ?? 8, async (url) => {
    if (failed) return;
    try {
      await imageSlots.run(() => (failed ? Promise.resolve() : rehostOne(url)));
    } catch (error) {
      if (failed) return; // a consequence of the abort below, not a failure of its own
      failed = true;
      failure = error;
      controller.abort();
    }
  });

  if (failed) {
    if (failure instanceof MediaError && failure.reason === 'decode_failed') {
      deps.logger?.warn(
        { url: displayUrl(failure.url), err: failure.cause },
        'an image could not be decoded',
      );
    }
    await deleteAll(storage, created, deps.logger);
    throw failure;
  }

  let discarded = false;
  return {
    images: urls.map((url) => done.get(url) as RehostedImage),
    async discard() {
      if (discarded) return;
      discarded = true;
      await deleteAll(storage, created, deps.logger);
    },
  };
}
