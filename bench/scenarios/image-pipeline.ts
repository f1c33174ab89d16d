import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { loadConfig } from '../../src/config.js';
import {
  convertToWebp,
  createMediaStorage,
  localMediaRoot,
  MAX_IMAGE_DIMENSION,
  MediaError,
  mediaKeyFor,
  rehostImages,
} from '../../src/modules/media/index.js';
import { createSafeFetch } from '../../src/platform/net/safe-fetch.js';
import { cleanUp, cleanUpStack } from '../lib/cleanup.js';
import { envNumber, mean, median, roundOrder } from '../lib/rounds.js';
import { metric, type Scenario } from '../lib/scenario.js';

const WIDTH = 3000;
const HEIGHT = 2000;
const WARMUP = 3;
/** The pipeline's default WebP quality; the baseline uses it too, so both produce the same bytes. */
const QUALITY = 82;

/**
 * A 3000×2000 JPEG that compresses like a photograph rather than like a flat test card: smooth
 * gradients and waves for large areas, plus deterministic noise for the fine detail that makes
 * both the JPEG decoder and the WebP encoder work. No network, the same bytes on every run.
 */
async function photoLikeJpeg(): Promise<Buffer> {
  const pixels = Buffer.alloc(WIDTH * HEIGHT * 3);
  let seed = 0x2545f491;
  const noise = () => {
    // xorshift32: cheap and reproducible.
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return ((seed >>> 0) % 41) - 20;
  };
  const clamp = (v: number) => (v < 0 ? 0 : v > 255 ? 255 : v);
  for (let y = 0; y < HEIGHT; y++) {
    for (let x = 0; x < WIDTH; x++) {
      const i = (y * WIDTH + x) * 3;
      const wave = 40 * Math.sin(x / 90) * Math.cos(y / 70);
      pixels[i] = clamp((x / WIDTH) * 200 + wave + noise());
      pixels[i + 1] = clamp((y / HEIGHT) * 180 + 30 - wave + noise());
      pixels[i + 2] = clamp(120 + 60 * Math.sin((x + y) / 150) + noise());
    }
  }
  return sharp(pixels, { raw: { width: WIDTH, height: HEIGHT, channels: 3 } })
    .jpeg({ quality: 88 })
    .toBuffer();
}

/** The "remote" image host: a plain node:http server on loopback serving the JPEG. */
async function startImageHost(bytes: Buffer) {
  const server = http.createServer((request, response) => {
    if (request.url !== '/photo.jpg') {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': bytes.length }).end(bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/photo.jpg`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The floor: sharp alone on bytes already in memory, with the pipeline's resize and quality. */
function bareConversion(bytes: Buffer): Promise<Buffer> {
  return sharp(bytes)
    .rotate()
    .resize(MAX_IMAGE_DIMENSION, MAX_IMAGE_DIMENSION, { fit: 'inside', withoutEnlargement: true })
    .webp({ quality: QUALITY })
    .toBuffer();
}

/** Milliseconds per call of `work`, one call at a time; `after` runs outside the timed part. */
async function timeEach<T>(count: number, work: () => Promise<T>, after?: (value: T) => Promise<void>) {
  const times: number[] = [];
  const cpuBefore = process.cpuUsage();
  for (let n = 0; n < count; n++) {
    const started = performance.now();
    const value = await work();
    times.push(performance.now() - started);
    await after?.(value);
  }
  const cpu = process.cpuUsage(cpuBefore);
  return { times, cpuMsPerImage: (cpu.user + cpu.system) / 1000 / count };
}

interface Series {
  means: number[];
  p50s: number[];
  cpuMs: number[];
  all: number[];
}

const emptySeries = (): Series => ({ means: [], p50s: [], cpuMs: [], all: [] });

export const scenario: Scenario = {
  name: 'image-pipeline',
  description: `one ${WIDTH}×${HEIGHT} JPEG re-hosted as WebP (fetch + convert + store) vs bare sharp on the same bytes`,

  async run(log) {
    const images = Math.round(envNumber('BENCH_IMAGES', 30));
    const rounds = Math.round(envNumber('BENCH_ROUNDS', 1));
    const notes: string[] = [];
    const { release, onExit } = cleanUpStack();

    try {
      const generated = performance.now();
      const jpeg = await photoLikeJpeg();
      log(
        `generated a ${WIDTH}×${HEIGHT} JPEG of ${(jpeg.length / 1024 / 1024).toFixed(2)} MiB in ${Math.round(performance.now() - generated)} ms`,
      );
      const host = await startImageHost(jpeg);
      onExit('image host', () => host.close());

      // The app's wiring of the pipeline (src/app.ts), from a config with ALLOW_PRIVATE_URLS=true:
      // the loopback image host is then reachable through the real SSRF-guarded fetch.
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'emporium-bench-media-'));
      onExit('data dir', async () => fs.rmSync(dataDir, { recursive: true, force: true }));
      const config = loadConfig({
        LOG_LEVEL: 'silent',
        DATA_DIR: dataDir,
        HOST: '127.0.0.1',
        PORT: '0',
        ALLOW_PRIVATE_URLS: 'true',
      });
      const storage = createMediaStorage({
        driver: config.media.driver,
        dataDir: config.dataDir,
        publicUrl: config.publicUrl,
        s3: config.media.s3,
      });
      onExit('media storage', () => storage.close());
      const imageFetch = createSafeFetch({
        allowPrivateUrls: config.allowPrivateUrls,
        userAgent: 'Emporium-Images/1',
      });
      onExit('image fetch', () => imageFetch.close());
      const deps = { storage, fetch: imageFetch };

      // The guard is really in the path: without ALLOW_PRIVATE_URLS the same URL is refused.
      const guardedFetch = createSafeFetch({ allowPrivateUrls: false, userAgent: 'Emporium-Images/1' });
      try {
        await rehostImages([host.url], { storage, fetch: guardedFetch });
        throw new Error(`the SSRF guard let ${host.url} through with ALLOW_PRIVATE_URLS=false`);
      } catch (error) {
        if (!(error instanceof MediaError) || error.reason !== 'blocked_address') throw error;
      } finally {
        await guardedFetch.close();
      }

      // Correctness: ours stores exactly what bare sharp produces from the same bytes.
      const bare = await bareConversion(jpeg);
      const first = await rehostImages([host.url], deps);
      const hosted = first.images[0];
      if (!hosted) throw new Error('rehostImages returned no image');
      const stored = fs.readFileSync(path.join(localMediaRoot(dataDir), ...hosted.key.split('/')));
      const bareMeta = await sharp(bare).metadata();
      if (!stored.equals(bare) || hosted.key !== mediaKeyFor(bare)) {
        throw new Error(
          `correctness check FAILED: ours stored ${stored.length} bytes (${hosted.width}×${hosted.height}), bare sharp made ${bare.length} bytes (${bareMeta.width}×${bareMeta.height})`,
        );
      }
      await first.discard();
      log(
        `correctness check passed: ours stored the same ${hosted.width}×${hosted.height} WebP (${(bare.length / 1024).toFixed(0)} KiB) as bare sharp; loopback refused without ALLOW_PRIVATE_URLS`,
      );

      // Content-addressed storage writes a key once: each timed re-host is followed (untimed) by
      // discard(), which deletes the file it created, so every iteration really writes and fsyncs.
      const ours = () => rehostImages([host.url], deps);
      const discard = (result: Awaited<ReturnType<typeof ours>>) => result.discard();
      const bareRun = () => bareConversion(jpeg);
      const convertOnly = () => convertToWebp(host.url, jpeg);

      log(`warm-up: ${WARMUP} images each…`);
      await timeEach(WARMUP, ours, discard);
      await timeEach(WARMUP, bareRun);

      const series = { ours: emptySeries(), baseline: emptySeries(), convert: emptySeries() };
      const record = (into: Series, result: { times: number[]; cpuMsPerImage: number }) => {
        into.means.push(mean(result.times));
        into.p50s.push(median(result.times));
        into.cpuMs.push(result.cpuMsPerImage);
        into.all.push(...result.times);
      };
      for (let round = 0; round < rounds; round++) {
        for (const which of roundOrder(round)) {
          log(
            `${which}${rounds > 1 ? ` (round ${round + 1}/${rounds})` : ''}: ${images} images, one at a time…`,
          );
          record(
            series[which],
            which === 'ours' ? await timeEach(images, ours, discard) : await timeEach(images, bareRun),
          );
        }
        // Where our time goes: the conversion step alone (convertToWebp on the bytes in memory).
        log(`convertToWebp alone${rounds > 1 ? ` (round ${round + 1}/${rounds})` : ''}: ${images} images…`);
        record(series.convert, await timeEach(images, convertOnly));
      }

      const summary = (s: Series) => ({
        mean: median(s.means),
        p50: median(s.p50s),
        cpuMs: median(s.cpuMs),
        min: Math.min(...s.all),
        max: Math.max(...s.all),
      });
      const o = summary(series.ours);
      const b = summary(series.baseline);
      const c = summary(series.convert);
      notes.push(
        `input: a ${WIDTH}×${HEIGHT} JPEG (quality 88, gradients + waves + noise) of ${(jpeg.length / 1024 / 1024).toFixed(2)} MiB, ` +
          `generated by sharp at the start; output ${hosted.width}×${hosted.height} WebP of ${(bare.length / 1024).toFixed(0)} KiB, byte-identical in both`,
        'ours: rehostImages([url], { storage, fetch }) wired as in src/app.ts (local storage under a temporary DATA_DIR, ' +
          'createSafeFetch with ALLOW_PRIVATE_URLS=true) downloading from a node:http server on 127.0.0.1 in this process: ' +
          'fetch through the SSRF guard + metadata probe + convertToWebp + SHA-256 + write and fsync; discard() after each, untimed',
        `baseline: sharp(bytes).rotate().resize(${MAX_IMAGE_DIMENSION}, ${MAX_IMAGE_DIMENSION}, { fit: 'inside', withoutEnlargement: true })` +
          `.webp({ quality: ${QUALITY} }).toBuffer() on the bytes in memory (quality ${QUALITY}, the pipeline's default, so both encode the same image; ` +
          "sharp's own default would be 80)",
        `timing: ${WARMUP} warm-up images each, then ${images} sequential images per series${rounds > 1 ? `, ${rounds} rounds alternating ours and baseline (medians of the per-round figures)` : ''}; ` +
          `sharp's libvips thread pool uses ${sharp.concurrency()} thread(s) on ${os.cpus().length} CPU(s)`,
        `ours: mean ${o.mean.toFixed(1)} ms, p50 ${o.p50.toFixed(1)} ms, min ${o.min.toFixed(1)}, max ${o.max.toFixed(1)}, process CPU ${o.cpuMs.toFixed(0)} ms/image`,
        `baseline: mean ${b.mean.toFixed(1)} ms, p50 ${b.p50.toFixed(1)} ms, min ${b.min.toFixed(1)}, max ${b.max.toFixed(1)}, process CPU ${b.cpuMs.toFixed(0)} ms/image`,
        `convertToWebp alone (ours without fetch and store): mean ${c.mean.toFixed(1)} ms, p50 ${c.p50.toFixed(1)} ms, process CPU ${c.cpuMs.toFixed(0)} ms/image`,
        `load average after the run: ${os.loadavg()[0]?.toFixed(2)} on ${os.cpus().length} CPUs (well above ~1 means other work was competing)`,
        "the runner's targets are strict (<): ours ≤ 1.3× bare is checked as ratio < 1.3",
      );

      const label = 'bare sharp rotate/resize/webp on the same bytes in memory (no fetch, no store)';
      const withinRatio = { on: 'ratio', op: '<', value: 1.3 } as const;
      return {
        notes,
        metrics: [
          metric({
            name: 'per image, mean',
            unit: 'ms',
            ours: o.mean,
            baseline: b.mean,
            baselineLabel: label,
            target: withinRatio,
          }),
          metric({
            name: 'per image, p50',
            unit: 'ms',
            ours: o.p50,
            baseline: b.p50,
            baselineLabel: label,
            target: withinRatio,
          }),
          metric({
            name: 'process CPU per image',
            unit: 'ms',
            ours: o.cpuMs,
            baseline: b.cpuMs,
            baselineLabel: label,
          }),
        ],
      };
    } finally {
      await cleanUp(log, release);
    }
  },
};
