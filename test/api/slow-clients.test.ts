import http from 'node:http';
import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { HttpLimits } from '../../src/config.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';

/**
 * Slow and numerous clients against a real listening server (raw sockets, 127.0.0.0/8 only): a
 * stalled request is answered 408 and closed; stalled connections past the per-address limit are
 * closed at once; the process-wide cap holds; and normal requests stay fast meanwhile. Every loop is
 * bounded in count and time.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface RawConnection {
  socket: net.Socket;
  /** Everything the server sent. */
  received(): string;
  /** Milliseconds from connecting to the close, once closed. */
  closedAfter(): number | undefined;
  /** Resolves when closed, or with undefined after `ms`. */
  waitClosed(ms: number): Promise<number | undefined>;
}

function openRaw(port: number, localAddress: string, data?: string): Promise<RawConnection> {
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
const STALLED_BODY =
  'POST /api/admin/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
  'Content-Length: 100000\r\n\r\n{';

/** One ordinary GET /healthz on a new connection from `localAddress`; its status and duration. */
function timedGet(port: number, localAddress: string, timeoutMs = 5000) {
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
async function settled(count: () => number, quietMs = 300, maxMs = 10_000): Promise<number> {
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

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] as number;
};

async function listening(limits: HttpLimits) {
  const app = await buildTestApp({ config: { httpLimits: limits } });
  await app.server.listen({ port: 0, host: '127.0.0.1' });
  return { app, port: (app.server.server.address() as net.AddressInfo).port };
}

const opened: RawConnection[] = [];
afterEach(() => {
  for (const c of opened.splice(0)) c.socket.destroy();
});

describe('time-outs: a stalled request is answered 408 and closed', () => {
  let app: TestApp;
  let port: number;
  beforeAll(async () => {
    ({ app, port } = await listening({
      requestTimeoutMs: 1000,
      headersTimeoutMs: 600,
      keepAliveTimeoutMs: 1000,
      maxConnections: 1000,
      maxConnectionsPerAddress: 100,
    }));
  });
  afterAll(() => app.close());

  it.each([
    [
      'a body that stops after 1 of 100,000 bytes',
      STALLED_BODY.replace('\r\n\r\n', '\r\nX-Request-Id: stalled-body-1\r\n\r\n'),
      1000,
      /^stalled-body-1$/,
    ],
    ['headers that never end', 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ', 600, UUID],
  ])('%s: 408 request_timeout in the error body, then closed', async (_case, data, limitMs, requestId) => {
    const connection = await openRaw(port, '127.0.0.1', data);
    opened.push(connection);
    const closedAfter = await connection.waitClosed(5000);
    expect(closedAfter, 'still open 5 s later').toBeDefined();
    expect(closedAfter).toBeGreaterThanOrEqual(limitMs - 50);
    expect(closedAfter).toBeLessThan(limitMs + 1500);
    const [head = '', body = ''] = connection.received().split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(head).toMatch(/\r\nConnection: close/i);
    expect(JSON.parse(body)).toEqual({
      error: { code: 'request_timeout', message: expect.any(String) },
    });
    // The id of the request the server had begun (the caller's here), else a new one.
    expect(/\r\nX-Request-Id: (\S+)/i.exec(head)?.[1]).toMatch(requestId);
  });

  it('closes a connection that never sends a byte after the headers time-out', async () => {
    const connection = await openRaw(port, '127.0.0.1');
    opened.push(connection);
    const closedAfter = await connection.waitClosed(5000);
    expect(closedAfter, 'still open 5 s later').toBeDefined();
    expect(closedAfter).toBeLessThan(600 + 1500);
  });

  it('closes an idle keep-alive connection after the keep-alive time-out', async () => {
    const connection = await openRaw(port, '127.0.0.1', 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    opened.push(connection);
    const closedAfter = await connection.waitClosed(5000);
    expect(connection.received()).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(closedAfter, 'still open 5 s later').toBeDefined();
    expect(closedAfter).toBeGreaterThanOrEqual(900);
  });

  it('lets a request that sends its body in time through', async () => {
    const body = JSON.stringify({ email: 'nobody@example.com', password: 'x' });
    const connection = await openRaw(
      port,
      '127.0.0.1',
      `POST /api/admin/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
    );
    opened.push(connection);
    await new Promise((r) => setTimeout(r, 300));
    connection.socket.write(body);
    await connection.waitClosed(5000);
    expect(connection.received()).toMatch(/^HTTP\/1\.1 401 /);
  });
});

describe('connection limits: stalled connections cannot starve normal requests', () => {
  const PER_ADDRESS = 200;
  const MAX = 350;
  /** Stalled connections opened from one address: PER_ADDRESS of them stay, the rest are closed. */
  const STALLED = 300;
  let app: TestApp;
  let port: number;
  beforeAll(async () => {
    ({ app, port } = await listening({
      requestTimeoutMs: 60_000,
      headersTimeoutMs: 30_000,
      keepAliveTimeoutMs: 5000,
      maxConnections: MAX,
      maxConnectionsPerAddress: PER_ADDRESS,
    }));
  });
  afterAll(() => app.close());

  /** The server's open connections, once the previous test's have all gone. */
  async function noConnectionsLeft() {
    const count = () =>
      new Promise<number>((resolve, reject) =>
        app.server.server.getConnections((error, n) => (error ? reject(error) : resolve(n))),
      );
    for (let i = 0; i < 100 && (await count()) > 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await count()).toBe(0);
  }

  async function openStalled(count: number, localAddress: string) {
    const batch: RawConnection[] = [];
    for (let i = 0; i < count; i += 50) {
      const size = Math.min(50, count - i);
      batch.push(
        ...(await Promise.all(Array.from({ length: size }, () => openRaw(port, localAddress, STALLED_BODY)))),
      );
    }
    opened.push(...batch);
    const closed = await settled(() => batch.filter((c) => c.closedAfter() !== undefined).length);
    return { batch, closed };
  }

  it('closes stalled connections past the per-address limit; normal requests answer promptly', async () => {
    await noConnectionsLeft();
    const { batch, closed } = await openStalled(STALLED, '127.0.0.2');
    expect(closed).toBe(STALLED - PER_ADDRESS);
    // The ones closed were refused without an answer; the ones kept are still waiting for their body.
    for (const c of batch) {
      if (c.closedAfter() !== undefined) expect(c.received()).toBe('');
    }

    const timings: number[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await timedGet(port, '127.0.0.1');
      expect(res.status).toBe(200);
      timings.push(res.ms);
    }
    console.info(
      `${PER_ADDRESS} stalled connections open: GET /healthz p50 ${percentile(timings, 50).toFixed(1)} ms, max ${Math.max(...timings).toFixed(1)} ms`,
    );
    expect(percentile(timings, 50)).toBeLessThan(200);
    expect(Math.max(...timings)).toBeLessThan(1000);
  });

  it('holds the per-process cap: past it every new connection is closed, below it served again', async () => {
    await noConnectionsLeft();
    await openStalled(PER_ADDRESS, '127.0.0.2');
    const second = await openStalled(PER_ADDRESS, '127.0.0.3');
    // 2 × 200 asked for, 350 allowed: the last 50 were dropped by the process cap.
    expect(second.closed).toBe(2 * PER_ADDRESS - MAX);
    const atCap = await timedGet(port, '127.0.0.1', 2000);
    expect(atCap.status).toBe('refused');

    for (const c of second.batch) c.socket.destroy();
    await settled(() => second.batch.filter((c) => c.closedAfter() === undefined).length, 200);
    await new Promise((r) => setTimeout(r, 200));
    const below = await timedGet(port, '127.0.0.1');
    expect(below.status).toBe(200);
    expect(below.ms).toBeLessThan(1000);
  });
});
