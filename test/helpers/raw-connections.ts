import http from 'node:http';
import net from 'node:net';
import type { HttpLimits } from '../../src/config.js';
import { buildTestApp } from './app.js';

/**
 * Raw client connections for the tests of slow and numerous clients: sockets bound to chosen loopback
 * addresses (127.0.0.0/8 is all loopback on Linux, so each test can be many clients), recording what
 * the server sent and when it closed.
 */

export interface RawConnection {
  socket: net.Socket;
  /** Everything the server sent. */
  received(): string;
  /** Milliseconds from connecting to the close, once closed. */
  closedAfter(): number | undefined;
  /** Resolves when closed, or with undefined after `ms`. */
  waitClosed(ms: number): Promise<number | undefined>;
}

export function openRaw(port: number, localAddress: string, data?: string): Promise<RawConnection> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let text = '';
    let closedAt: number | undefined;
    const waiters: (() => void)[] = [];
    const socket = net.connect({ port, host: '127.0.0.1', localAddress });
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    socket.on('error', () => undefined); // a reset is one of the outcomes under test
    socket.on('close', () => {
      closedAt = performance.now() - started;
      for (const wake of waiters.splice(0)) wake();
    });
    const connection: RawConnection = {
      socket,
      received: () => text,
      closedAfter: () => closedAt,
      waitClosed: (ms) =>
        new Promise((done) => {
          if (closedAt !== undefined) return done(closedAt);
          const timer = setTimeout(() => done(undefined), ms);
          waiters.push(() => {
            clearTimeout(timer);
            done(closedAt);
          });
        }),
    };
    socket.once('connect', () => {
      if (data) socket.write(data);
      resolve(connection);
    });
    socket.once('error', reject);
  });
}

/** A POST announcing 100,000 bytes of body and sending one. */
export const STALLED_BODY =
  'POST /api/admin/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
  'Content-Length: 100000\r\n\r\n{';

/** One ordinary GET /healthz on a new connection from `localAddress`; its status and duration. */
export function timedGet(port: number, localAddress: string, timeoutMs = 5000) {
  return new Promise<{ status: number | 'refused' | 'timeout'; ms: number }>((resolve) => {
    const started = performance.now();
    const req = http.get(
      { host: '127.0.0.1', port, path: '/healthz', localAddress, agent: false, timeout: timeoutMs },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
      },
    );
    req.on('timeout', () => {
      req.destroy();
      resolve({ status: 'timeout', ms: performance.now() - started });
    });
    req.on('error', () => resolve({ status: 'refused', ms: performance.now() - started }));
  });
}

/** Waits until `count()` has not changed for `quietMs`, or `maxMs` passed; returns its value. */
export async function settled(count: () => number, quietMs = 300, maxMs = 10_000): Promise<number> {
  const deadline = performance.now() + maxMs;
  let last = count();
  let since = performance.now();
  while (performance.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    const now = count();
    if (now !== last) {
      last = now;
      since = performance.now();
    } else if (performance.now() - since >= quietMs) break;
  }
  return last;
}

export const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] as number;
};

/** A test app listening on a real port of 127.0.0.1, with the given HTTP limits. */
export async function listening(limits: HttpLimits) {
  const app = await buildTestApp({ config: { httpLimits: limits } });
  await app.server.listen({ port: 0, host: '127.0.0.1' });
  return { app, port: (app.server.server.address() as net.AddressInfo).port };
}

/** `count` connections from `localAddress`, each sending `data`, opened 50 at a time. */
export async function openMany(
  port: number,
  count: number,
  localAddress: string,
  data = STALLED_BODY,
): Promise<RawConnection[]> {
  const all: RawConnection[] = [];
  for (let i = 0; i < count; i += 50) {
    const size = Math.min(50, count - i);
    all.push(...(await Promise.all(Array.from({ length: size }, () => openRaw(port, localAddress, data)))));
  }
  return all;
}

/** The connections a listening server holds open. */
export function serverConnections(server: net.Server): Promise<number> {
  return new Promise((resolve, reject) =>
    server.getConnections((error, n) => (error ? reject(error) : resolve(n))),
  );
}

/** The connections a listening server holds once it has accepted all those waiting (unchanged for 300 ms). */
export async function settledServerConnections(server: net.Server): Promise<number> {
  let last = await serverConnections(server);
  let since = performance.now();
  for (let i = 0; i < 200 && performance.now() - since < 300; i++) {
    await new Promise((r) => setTimeout(r, 50));
    const now = await serverConnections(server);
    if (now !== last) {
      last = now;
      since = performance.now();
    }
  }
  return last;
}

/** Waits until the server holds no connection (those of a previous test have gone); false if it still does. */
export async function noConnectionsLeft(server: net.Server): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    if ((await serverConnections(server)) === 0) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}
