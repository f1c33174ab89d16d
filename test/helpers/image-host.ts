import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';

/**
 * A local HTTP server for outbound-fetch tests (image downloads, redirects, slow or broken answers).
 * Listens on a loopback address and a random port; routes are plain node:http handlers.
 */

export type RouteHandler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

export interface TestHost {
  /** `http://<host>:<port>` */
  origin: string;
  port: number;
  url(path: string): string;
  route(path: string, handler: RouteHandler): void;
  /** Requests received per path. */
  hits: Map<string, number>;
  close(): Promise<void>;
}

export async function startTestHost(
  routes: Record<string, RouteHandler> = {},
  host = '127.0.0.1',
): Promise<TestHost> {
  const table = new Map(Object.entries(routes));
  const hits = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] as string;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const handler = table.get(path);
    if (!handler) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    origin,
    port,
    url: (path) => `${origin}${path}`,
    route: (path, handler) => table.set(path, handler),
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Serves fixed bytes with a content type (and Content-Length unless `chunked`). */
export function serveBytes(
  bytes: Buffer,
  contentType: string,
  options: { chunked?: boolean } = {},
): RouteHandler {
  return (_req, res) => {
    const headers: Record<string, string> = { 'content-type': contentType };
    if (!options.chunked) headers['content-length'] = String(bytes.length);
    res.writeHead(200, headers);
    if (options.chunked) {
      // Several writes so the body arrives in chunks without a declared length.
      const step = 64 * 1024;
      for (let offset = 0; offset < bytes.length; offset += step)
        res.write(bytes.subarray(offset, offset + step));
      res.end();
    } else {
      res.end(bytes);
    }
  };
}

export function redirectTo(location: string, status = 302): RouteHandler {
  return (_req, res) => {
    res.writeHead(status, { location }).end();
  };
}

/** Answers headers after `delayMs` (or never finishes the body when `stallBody`). */
export function slow(delayMs: number, options: { stallBody?: boolean } = {}): RouteHandler {
  return (_req, res) => {
    if (options.stallBody) {
      res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': '100000' });
      res.write(Buffer.alloc(10));
      return;
    }
    const timer = setTimeout(() => {
      res.writeHead(200, { 'content-type': 'image/jpeg' }).end(Buffer.alloc(10));
    }, delayMs);
    res.on('close', () => clearTimeout(timer));
  };
}

/**
 * A JPEG of `width`×`height` whose left half is red and right half blue, with an EXIF orientation
 * tag: after auto-orientation by 90° clockwise (orientation 6) the red half is on top.
 */
export async function twoToneJpeg(width: number, height: number, orientation?: number): Promise<Buffer> {
  const half = Math.floor(width / 2);
  const blue = await sharp({
    create: { width: width - half, height, channels: 3, background: { r: 0, g: 0, b: 255 } },
  })
    .png()
    .toBuffer();
  let image = sharp({ create: { width, height, channels: 3, background: { r: 255, g: 0, b: 0 } } })
    .composite([{ input: blue, left: half, top: 0 }])
    .jpeg({ quality: 90 });
  if (orientation !== undefined) {
    image = image
      .withExif({ IFD0: { Copyright: 'test fixture', Artist: 'tester' } })
      .withMetadata({ orientation });
  }
  return image.toBuffer();
}

export async function solidPng(
  width: number,
  height: number,
  colour = { r: 0, g: 160, b: 80 },
): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 4, background: { ...colour, alpha: 1 } } })
    .png()
    .toBuffer();
}

export function garbage(size: number): Buffer {
  return randomBytes(size);
}
