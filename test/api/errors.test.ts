import net from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  conflict,
  forbidden,
  insufficientStock,
  notFound,
  paymentDeclined,
} from '../../src/platform/http/errors.js';
import { createHttpServer } from '../../src/platform/http/server.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { createStoreWithKey } from '../helpers/factories.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const GENERIC_500 = 'An internal error occurred; it has been logged';

const pgError = (code: string, message: string, extra: object = {}) =>
  Object.assign(new Error(message), { code, ...extra });

/** What a handler throws → the status and code the client must see. */
const THROWN: Record<string, { error: () => unknown; status: number; code: string }> = {
  'a plain Error (a bug)': {
    error: () => new Error('secret detail from /srv/emporium/src/orders.ts:42'),
    status: 500,
    code: 'internal_error',
  },
  'a TypeError (a bug)': {
    error: () => new TypeError("Cannot read properties of undefined (reading 'secret')"),
    status: 500,
    code: 'internal_error',
  },
  'ECONNREFUSED from the driver': {
    error: () => pgError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'),
    status: 503,
    code: 'unavailable',
  },
  'a dropped connection': {
    error: () => new Error('Connection terminated unexpectedly'),
    status: 503,
    code: 'unavailable',
  },
  'PostgreSQL shutting down (57P01)': {
    error: () => pgError('57P01', 'terminating connection due to administrator command'),
    status: 503,
    code: 'unavailable',
  },
  'a connection failure (08006)': {
    error: () => pgError('08006', 'connection failure'),
    status: 503,
    code: 'unavailable',
  },
  "node's abort of a body the client stopped sending (not the database's ECONNRESET)": {
    error: () => Object.assign(new Error('aborted'), { code: 'ECONNRESET', statusCode: 400 }),
    status: 400,
    code: 'invalid_request',
  },
  'a unique violation (23505)': {
    error: () => pgError('23505', 'duplicate key', { constraint: 'stores_slug_key' }),
    status: 409,
    code: 'conflict',
  },
  'a foreign-key violation (23503)': {
    error: () => pgError('23503', 'violates foreign key'),
    status: 400,
    code: 'invalid_request',
  },
  'payment declined': { error: () => paymentDeclined(), status: 402, code: 'payment_declined' },
  forbidden: { error: () => forbidden('no'), status: 403, code: 'forbidden' },
  'not found': { error: () => notFound('order'), status: 404, code: 'not_found' },
  conflict: { error: () => conflict('order is fulfilled'), status: 409, code: 'conflict' },
  'insufficient stock': {
    error: () => insufficientStock('only 2 left'),
    status: 409,
    code: 'insufficient_stock',
  },
};

/**
 * The production HTTP wiring (createHttpServer) with throwaway routes: the real app has no POST route
 * yet, and no route that fails on purpose.
 */
function buildPlatformServer(logger: FastifyBaseLogger) {
  const server = createHttpServer(logger);
  const Item = Type.Object(
    { name: Type.String({ minLength: 1 }), quantity: Type.Integer({ minimum: 1 }) },
    { additionalProperties: false },
  );
  server.post('/items', { schema: { body: Item, response: { 201: Item } } }, async (request, reply) =>
    reply.code(201).send(request.body),
  );
  server.get('/throw/:name', async (request) => {
    const { name } = request.params as { name: string };
    throw THROWN[decodeURIComponent(name)]?.error();
  });
  return server;
}

describe('error bodies of the HTTP platform', () => {
  const logLines: string[] = [];
  const logger = pino({ level: 'error' }, { write: (line: string) => void logLines.push(line) });
  const server = buildPlatformServer(logger);
  beforeAll(() => server.ready());
  afterAll(() => server.close());

  const postItems = (payload: string | Buffer, headers: Record<string, string> = {}) =>
    server.inject({
      method: 'POST',
      url: '/items',
      payload,
      headers: { 'content-type': 'application/json', ...headers },
    });

  it('accepts a valid body (the baseline the rejections below differ from)', async () => {
    for (const contentType of ['application/json', 'application/json; charset=utf-8']) {
      const res = await postItems(JSON.stringify({ name: 'mug', quantity: 2 }), {
        'content-type': contentType,
      });
      expect(res.statusCode).toBe(201);
      expect(res.json()).toEqual({ name: 'mug', quantity: 2 });
    }
  });

  it.each([
    ['malformed JSON', '{"name": "mug",'],
    ['a JSON body that is empty', ''],
    ['a prototype-poisoning body', '{"name": "mug", "quantity": 1, "__proto__": {"admin": true}}'],
    ['null', 'null'],
    ['an array', '[{"name": "mug", "quantity": 1}]'],
  ])('answers 400 invalid_request for %s', async (_case, payload) => {
    const res = await postItems(payload);
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['x-request-id']).toMatch(UUID);
    expect(res.json()).toEqual({
      error: expect.objectContaining({ code: 'invalid_request', message: expect.any(String) }),
    });
  });

  it.each([
    [
      'a string for an integer (no coercion)',
      { name: 'mug', quantity: '2' },
      'quantity',
      /^must be a whole number$/,
    ],
    ['a number for a string', { name: 7, quantity: 2 }, 'name', /^must be text$/],
    ['an unknown field', { name: 'mug', quantity: 2, colour: 'red' }, 'colour', /^is not a known field$/],
    ['a missing required field', { name: 'mug' }, 'quantity', /^is required$/],
    ['an out-of-range number', { name: 'mug', quantity: 0 }, 'quantity', /^must be at least 1$/],
  ])('answers 400 with details for %s', async (_case, body, field, message) => {
    const res = await postItems(JSON.stringify(body));
    expect(res.statusCode).toBe(400);
    const { error } = res.json();
    expect(error.code).toBe('invalid_request');
    expect(error.details).toHaveLength(1);
    expect(Object.keys(error.details[0]).sort()).toEqual(['field', 'message']);
    expect(error.details[0].field).toBe(field);
    expect(error.details[0].message).toMatch(message);
  });

  it('answers 413 payload_too_large for a body over 1 MiB, and accepts one just under', async () => {
    const name = 'x'.repeat(1024 * 1024);
    const res = await postItems(JSON.stringify({ name, quantity: 1 }));
    expect(res.statusCode).toBe(413);
    expect(res.json().error.code).toBe('payload_too_large');
    expect(res.headers['x-request-id']).toMatch(UUID);

    const under = JSON.stringify({ name: 'x'.repeat(1024 * 1024 - 100), quantity: 1 });
    expect(Buffer.byteLength(under)).toBeLessThan(1024 * 1024);
    expect((await postItems(under)).statusCode).toBe(201);
  });

  it.each([
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/xml',
    undefined,
  ])('answers 415 unsupported_media_type for a body of type %s', async (contentType) => {
    const res = await server.inject({
      method: 'POST',
      url: '/items',
      body: Buffer.from(JSON.stringify({ name: 'mug', quantity: 2 })),
      headers: contentType ? { 'content-type': contentType } : {},
    });
    expect(res.statusCode).toBe(415);
    expect(res.json().error.code).toBe('unsupported_media_type');
    expect(res.headers['x-request-id']).toMatch(UUID);
  });

  it.each(Object.entries(THROWN))('maps %s to its status and code', async (name, expected) => {
    const res = await server.inject({ method: 'GET', url: `/throw/${encodeURIComponent(name)}` });
    expect(res.statusCode).toBe(expected.status);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json()).toEqual({ error: { code: expected.code, message: expect.any(String) } });
    expect(res.headers['x-request-id']).toMatch(UUID);
    if (expected.status === 503) expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('answers a bug with the generic message, no stack, and logs it with the request id', async () => {
    logLines.length = 0;
    const res = await server.inject({
      method: 'GET',
      url: `/throw/${encodeURIComponent('a plain Error (a bug)')}`,
      headers: { 'x-request-id': 'bug-report-1' },
    });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ error: { code: 'internal_error', message: GENERIC_500 } });
    expect(res.body).not.toMatch(/secret detail|orders\.ts|\bat /);

    const logged = logLines.map((line) => JSON.parse(line)).find((entry) => entry.reqId === 'bug-report-1');
    expect(logged?.err?.message).toContain('secret detail');
    expect(logged?.err?.stack).toBeDefined();
  });

  it('does not leak driver details of a database outage', async () => {
    const res = await server.inject({
      method: 'GET',
      url: `/throw/${encodeURIComponent('ECONNREFUSED from the driver')}`,
    });
    expect(res.body).not.toMatch(/ECONNREFUSED|5432/);
  });
});

describe('not found and request ids on the real app', () => {
  let app: TestApp;
  let key: string;
  beforeAll(async () => {
    app = await buildTestApp();
    key = (await createStoreWithKey(app, { scopes: ['customers:read'] })).key;
  });
  afterAll(() => app.close());

  it('answers 404 not_found in the error envelope for an unknown route', async () => {
    for (const [method, url] of [
      ['GET', '/nowhere'],
      ['GET', '/api/v1/nowhere?x=1'],
      ['POST', '/api/v1/customers'],
    ] as const) {
      const res = await app.server.inject({ method, url, headers: { 'x-api-key': key } });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({
        error: { code: 'not_found', message: `No route for ${method} ${url.split('?')[0]}` },
      });
    }
  });

  // Routing errors bypass the hooks and the error handler unless the platform catches them.
  it('answers 400 invalid_request in the envelope for a URL that cannot be decoded', async () => {
    const res = await app.server.inject({
      method: 'GET',
      url: '/api/v1/customers/%E0%A4%A',
      headers: { 'x-api-key': key },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: { code: 'invalid_request', message: 'The URL is not valid' } });
    expect(res.headers['x-request-id']).toMatch(UUID);
  });

  it('answers 404 not_found in the envelope for a path parameter longer than any id', async () => {
    const res = await app.server.inject({
      method: 'GET',
      url: `/api/v1/customers/${'a'.repeat(101)}`,
      headers: { 'x-api-key': key, 'x-request-id': 'long-param' },
    });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('not_found');
    expect(res.headers['x-request-id']).toBe('long-param');
  });

  it('puts an X-Request-Id on every response, errors included', async () => {
    const responses = await Promise.all([
      app.server.inject({ method: 'GET', url: '/healthz' }),
      app.server.inject({ method: 'GET', url: '/api/v1/customers', headers: { 'x-api-key': key } }),
      app.server.inject({ method: 'GET', url: '/api/v1/customers' }),
      app.server.inject({ method: 'GET', url: '/api/v1/customers?limit=0', headers: { 'x-api-key': key } }),
      app.server.inject({ method: 'GET', url: '/nowhere' }),
    ]);
    expect(responses.map((r) => r.statusCode)).toEqual([200, 200, 401, 400, 404]);
    const ids = responses.map((r) => r.headers['x-request-id']);
    for (const id of ids) expect(id).toMatch(UUID);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('echoes a safe caller X-Request-Id and replaces an unsafe one', async () => {
    const idOf = async (requestId: string) =>
      (await app.server.inject({ method: 'GET', url: '/nowhere', headers: { 'x-request-id': requestId } }))
        .headers['x-request-id'];
    expect(await idOf('trace-42.abc:7_Z')).toBe('trace-42.abc:7_Z');
    expect(await idOf('a'.repeat(100))).toBe('a'.repeat(100));
    for (const unsafe of ['a'.repeat(101), 'has spaces', 'new\u00e9', 'semi;colon', '<script>']) {
      const id = await idOf(unsafe);
      expect(id).not.toBe(unsafe);
      expect(id).toMatch(UUID);
    }
  });
});

/** A TCP proxy in front of the database, which the test can cut and restore. */
async function startProxy(target: { host: string; port: number }, port = 0) {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    sockets.add(client).add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    for (const socket of [client, upstream]) socket.on('error', drop).on('close', drop);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return {
    port: (server.address() as net.AddressInfo).port,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

describe('503 when the database is unreachable, and recovery', () => {
  let database: TestDatabase;
  let proxy: Awaited<ReturnType<typeof startProxy>>;
  let app: TestApp;
  let target: { host: string; port: number };

  beforeAll(async () => {
    database = await createTestDatabase();
    const url = new URL(database.url);
    target = { host: url.hostname, port: Number(url.port || 5432) };
    proxy = await startProxy(target);
    url.hostname = '127.0.0.1';
    url.port = String(proxy.port);
    app = await buildTestApp({ testDatabase: { ...database, url: url.toString() } });
  });
  afterAll(async () => {
    await app?.close();
    await proxy?.close();
    await database?.drop();
  });

  it('answers 503 while the database is gone and 200 again once it is back, without a rebuild', async () => {
    const used = await createStoreWithKey(app, { scopes: ['customers:read'] });
    // Never used before the outage: its lookup is not cached, so the auth step meets the outage.
    const unused = await app.services.stores.createApiKey(used.store.id, { scopes: ['customers:read'] });
    const list = (apiKey: string) =>
      app.server.inject({ method: 'GET', url: '/api/v1/customers', headers: { 'x-api-key': apiKey } });
    const ready = () => app.server.inject({ method: 'GET', url: '/readyz' });

    expect((await list(used.key)).statusCode).toBe(200);
    expect((await ready()).statusCode).toBe(200);

    await proxy.close();
    for (const res of [await list(used.key), await list(unused.key), await ready()]) {
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({
        error: { code: 'unavailable', message: expect.any(String) },
      });
      expect(res.headers['retry-after']).toBeDefined();
      expect(res.headers['x-request-id']).toMatch(UUID);
    }
    expect((await app.server.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    // The web shop of a store never looked up before: unavailable, not "no such shop" (a 404 would
    // tell search engines the shop is gone).
    const shopPage = await app.server.inject({ method: 'GET', url: `/shop/${used.store.slug}/` });
    expect(shopPage.statusCode).toBe(503);
    expect(shopPage.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(shopPage.headers['retry-after']).toBeDefined();
    expect(shopPage.body).toContain('The shop is unavailable');

    proxy = await startProxy(target, proxy.port);
    expect((await app.server.inject({ method: 'GET', url: `/shop/${used.store.slug}/` })).statusCode).toBe(
      200,
    );
    expect((await list(used.key)).statusCode).toBe(200);
    expect((await list(unused.key)).statusCode).toBe(200);
    expect((await ready()).json()).toEqual({ status: 'ready' });
  });
});
