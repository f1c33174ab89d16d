import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import {
  listening,
  noConnectionsLeft,
  openMany,
  openRaw,
  percentile,
  type RawConnection,
  STALLED_BODY,
  settled,
  settledServerConnections,
  timedGet,
} from '../helpers/raw-connections.js';

/**
 * Slow and numerous clients against a real listening server (raw sockets, 127.0.0.0/8 only): a
 * stalled request is answered 408 and closed; stalled connections past the per-address limit are
 * closed at once; and normal requests stay fast meanwhile (connection-shedding.test.ts: the minimum
 * body rate and the process-wide cap). Every loop is bounded in count and time.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

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
      // The time-outs alone (connection-shedding.test.ts covers the minimum body rate).
      minRequestBodyRate: 0,
      minRequestBodyRateGraceMs: 5000,
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
      minRequestBodyRate: 0,
      minRequestBodyRateGraceMs: 5000,
    }));
  });
  afterAll(() => app.close());

  async function openStalled(count: number, localAddress: string) {
    const batch = await openMany(port, count, localAddress);
    opened.push(...batch);
    // Once the server has accepted them all (a connect completes before the server sees it).
    await settledServerConnections(app.server.server);
    const closed = await settled(() => batch.filter((c) => c.closedAfter() !== undefined).length);
    return { batch, closed };
  }

  it('closes stalled connections past the per-address limit; normal requests answer promptly', async () => {
    expect(await noConnectionsLeft(app.server.server)).toBe(true);
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
});
