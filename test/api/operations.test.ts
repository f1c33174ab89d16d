import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpServer } from '../../src/platform/http/server.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createCustomers, createStoreWithKey } from '../helpers/factories.js';

let app: TestApp;
beforeAll(async () => {
  app = await buildTestApp();
});
afterAll(() => app.close());

const get = (url: string, headers: Record<string, string> = {}) =>
  app.server.inject({ method: 'GET', url, headers });

describe('health', () => {
  it('GET /healthz answers 200 without credentials', async () => {
    const res = await get('/healthz');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
  });

  it("GET /readyz answers 200 { status: 'ready' } while the database is reachable", async () => {
    const res = await get('/readyz');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ready' });
  });
});

describe('GET /metrics', () => {
  it('counts requests by method, route pattern and status, in Prometheus text', async () => {
    const { store, key } = await createStoreWithKey(app, { scopes: ['customers:read'] });
    const [customer] = await createCustomers(app, store.id, 1);
    const unknownId = '01890000-0000-7000-8000-000000000000';
    expect((await get('/api/v1/customers', { 'x-api-key': key })).statusCode).toBe(200);
    expect((await get('/api/v1/customers', { 'x-api-key': key })).statusCode).toBe(200);
    expect((await get(`/api/v1/customers/${customer?.id}`, { 'x-api-key': key })).statusCode).toBe(200);
    expect((await get(`/api/v1/customers/${unknownId}`, { 'x-api-key': key })).statusCode).toBe(404);
    expect((await get('/api/v1/customers')).statusCode).toBe(401);

    const res = await get('/metrics');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    const text = res.body;
    expect(text).toContain('# TYPE emporium_http_requests_total counter');
    expect(text).toContain('# TYPE emporium_http_request_duration_seconds histogram');
    const count = (route: string, status: number) => {
      const line = text
        .split('\n')
        .find(
          (l) =>
            l.startsWith('emporium_http_requests_total{') &&
            l.includes(`route="${route}"`) &&
            l.includes(`status="${status}"`) &&
            l.includes('method="GET"'),
        );
      return line === undefined ? undefined : Number(line.split(' ').at(-1));
    };
    expect(count('/api/v1/customers', 200)).toBe(2);
    expect(count('/api/v1/customers', 401)).toBe(1);
    expect(count('/api/v1/customers/:id', 200)).toBe(1);
    expect(count('/api/v1/customers/:id', 404)).toBe(1);
    // The pattern, never the raw URL: ids in labels would grow the series without bound.
    expect(text).not.toContain(customer?.id);
    expect(text).not.toContain(unknownId);
  });
});

interface Operation {
  security: unknown;
  'x-required-scope': string;
  description: string;
  parameters: { name: string; in: string; required?: boolean; schema: object }[];
  responses: Record<string, { content: Record<string, { schema: unknown }> }>;
}

interface OpenApiDocument {
  openapi: string;
  info: { title: string };
  paths: Record<string, { get: Operation } | undefined>;
  components: {
    securitySchemes: Record<string, unknown>;
    schemas: Record<string, { properties: { error: { required: string[]; properties: object } } }>;
  };
}

describe('GET /openapi.json', () => {
  let doc: OpenApiDocument;
  beforeAll(async () => {
    const res = await get('/openapi.json');
    expect(res.statusCode).toBe(200);
    doc = res.json();
  });

  it('is an OpenAPI 3.1.0 document with the API-key security scheme', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.title).toEqual(expect.any(String));
    expect(doc.components.securitySchemes.apiKey).toEqual({
      type: 'apiKey',
      in: 'header',
      name: 'X-API-Key',
    });
  });

  it.each(['/api/v1/customers', '/api/v1/customers/{id}'])(
    'documents GET %s with its security, scope and error bodies',
    (path) => {
      const operation = doc.paths[path]?.get as Operation;
      expect(operation).toBeDefined();
      expect(operation.security).toEqual([{ apiKey: [] }, { adminSession: [] }]);
      expect(operation['x-required-scope']).toBe('customers:read');
      expect(operation.description).toContain('customers:read');
      for (const status of ['401', '403', '429']) {
        expect(operation.responses[status]?.content['application/json']?.schema).toEqual({
          $ref: '#/components/schemas/ErrorBody',
        });
      }
      expect(operation.responses['200']).toBeDefined();
    },
  );

  it('documents the list parameters from the schemas that validate them', () => {
    const parameters = doc.paths['/api/v1/customers']?.get.parameters ?? [];
    const byName = Object.fromEntries(parameters.map((p) => [p.name, p]));
    expect(byName.page).toMatchObject({ in: 'query', schema: { type: 'integer', minimum: 1 } });
    expect(byName.limit).toMatchObject({
      in: 'query',
      schema: { type: 'integer', minimum: 1, maximum: 100 },
    });
    expect(byName.q).toMatchObject({ in: 'query' });
    const idParameter = doc.paths['/api/v1/customers/{id}']?.get.parameters[0];
    expect(idParameter).toMatchObject({ in: 'path', name: 'id', required: true });
  });

  it('has the ErrorBody component with code, message and details', () => {
    const errorBody = doc.components.schemas.ErrorBody;
    expect(errorBody).toBeDefined();
    expect(errorBody?.properties.error.required).toEqual(expect.arrayContaining(['code', 'message']));
    expect(Object.keys(errorBody?.properties.error.properties ?? {}).sort()).toEqual([
      'code',
      'details',
      'message',
    ]);
  });

  it('leaves out the hidden operational routes', () => {
    expect(doc.paths['/metrics']).toBeUndefined();
    expect(doc.paths['/openapi.json']).toBeUndefined();
  });
});

describe('GET /docs', () => {
  it('serves the interactive reference as HTML', async () => {
    let url = '/docs';
    let res = await get(url);
    for (let hops = 0; hops < 5 && res.statusCode >= 300 && res.statusCode < 400; hops++) {
      url = new URL(String(res.headers.location), `http://localhost${url}`).pathname;
      res = await get(url);
    }
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toMatch(/<html/i);
    expect(res.body).toMatch(/swagger/i);
  });
});

function deferred() {
  let resolve = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe('while the server closes', () => {
  // SIGTERM calls server.close(): the request in flight must finish, and a request that still reaches
  // the process (here: on the busy keep-alive connection) gets the contract's 503, with a request id.
  it('finishes the request in flight and answers a late one with the 503 envelope', async () => {
    const server = createHttpServer(pino({ level: 'silent' }));
    const slowStarted = deferred();
    const releaseSlow = deferred();
    server.get('/slow', async () => {
      slowStarted.resolve();
      await releaseSlow.promise;
      return { done: true };
    });
    server.get('/fast', async () => ({ done: true }));
    const closingStarted = deferred();
    server.addHook('preClose', async () => closingStarted.resolve());
    const lateAnswered = deferred();
    server.addHook('onSend', async (request) => {
      if (request.url === '/fast') lateAnswered.resolve();
    });
    await server.listen({ port: 0, host: '127.0.0.1' });

    const socket = net.connect((server.server.address() as net.AddressInfo).port, '127.0.0.1');
    let received = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => {
      received += chunk;
    });
    const socketClosed = new Promise((resolve) => socket.on('close', resolve));
    socket.write('GET /slow HTTP/1.1\r\nHost: test\r\n\r\n');
    await slowStarted.promise;

    const closed = server.close();
    await closingStarted.promise;
    socket.write('GET /fast HTTP/1.1\r\nHost: test\r\nX-Request-Id: late-1\r\n\r\n');
    // A response that bypasses the hooks never calls onSend: the timeout keeps the test from hanging.
    await Promise.race([lateAnswered.promise, sleep(1_000)]);
    releaseSlow.resolve();
    await closed;
    await socketClosed;

    const [first, second] = received.split(/(?=HTTP\/1\.1 )/);
    expect(first).toMatch(/^HTTP\/1\.1 200/);
    expect(first).toContain('{"done":true}');
    expect(second).toMatch(/^HTTP\/1\.1 503/);
    expect(second).toMatch(/^x-request-id: late-1\r$/im);
    const body = JSON.parse(second?.split('\r\n\r\n')[1] ?? '');
    expect(body).toEqual({ error: { code: 'unavailable', message: expect.any(String) } });
  });
});
