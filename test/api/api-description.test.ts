import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { type Client, client } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';

/**
 * What a client of the API description relies on (issue 29, item 9): validation errors that name
 * every invalid field and the allowed values, malformed ids in filters refused like any bad input,
 * and response headers that the document declares where the server sends them.
 */
let app: TestApp;
let api: Client;
beforeAll(async () => {
  app = await buildTestApp({ config: { rateLimitPerMinute: 4 } });
});
afterAll(() => app.close());

async function freshKey() {
  const { key } = await createStoreWithKey(app);
  return client(app, key);
}

interface ErrorAnswer {
  error: { code: string; message: string; details?: { field: string; message: string }[] };
}

describe('a malformed id in a list filter', () => {
  // A key per test: the server's limit is 4 calls a minute, for the headers' test below.
  beforeEach(async () => {
    api = await freshKey();
  });

  it.each([
    ['/api/v1/categories', 'parent_id'],
    ['/api/v1/products', 'category_id'],
    ['/api/v1/orders', 'customer_id'],
  ])('GET %s?%s=x is 400 invalid_request naming the parameter', async (path, parameter) => {
    const res = await api.get(`${path}?${parameter}=x`);
    expect(res.statusCode).toBe(400);
    const body = res.json() as ErrorAnswer;
    expect(body.error.code).toBe('invalid_request');
    expect(body.error.details).toEqual([{ field: parameter, message: expect.stringMatching(/id/) }]);
  });

  it('still accepts a well-formed id that names nothing (an empty list) and parent_id=root', async () => {
    const unknown = '01890000-0000-7000-8000-000000000000';
    const res = await api.get(`/api/v1/products?category_id=${unknown}`);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual([]);
    expect((await api.get('/api/v1/categories?parent_id=root')).statusCode).toBe(200);
  });
});

describe('validation errors', () => {
  // A key per test: the server's limit is 4 calls a minute, for the headers' test below.
  beforeEach(async () => {
    api = await freshKey();
  });

  it('name every invalid field of a body, not only the first', async () => {
    const res = await api.post('/api/v1/products', { name: 5, price: 'abc', inventory: -1, colour: 'red' });
    expect(res.statusCode).toBe(400);
    const fields = (res.json() as ErrorAnswer).error.details?.map((detail) => detail.field);
    expect(new Set(fields)).toEqual(new Set(['name', 'price', 'inventory', 'colour']));
  });

  it('name an enum field once, with its allowed values', async () => {
    const res = await api.post('/api/v1/products', { name: 'Tee', price: '1.00', status: 'sold' });
    expect(res.statusCode).toBe(400);
    expect((res.json() as ErrorAnswer).error.details).toEqual([
      { field: 'status', message: 'must be one of: active, draft, archived' },
    ]);
  });

  it('stop at 20 details however many fields are wrong', async () => {
    const body = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`unknown_${i}`, i]));
    const res = await api.post('/api/v1/products', { name: 'Tee', price: '1.00', ...body });
    expect(res.statusCode).toBe(400);
    const details = (res.json() as ErrorAnswer).error.details ?? [];
    expect(details).toHaveLength(20);
    expect(details[0]).toEqual({ field: 'unknown_0', message: 'is not a known field' });
  });
});

interface DocumentResponse {
  headers?: Record<string, unknown>;
}
interface DocumentOperation {
  responses: Record<string, DocumentResponse>;
}
type Document = { paths: Record<string, Record<string, DocumentOperation>> };

describe('the response headers the server sends', () => {
  it('are declared on the answering operation and status of /openapi.json', async () => {
    const document = (await app.server.inject({ method: 'GET', url: '/openapi.json' })).json() as Document;
    const limited = await freshKey();
    const answers = [];
    // Four calls in the window, then over the limit: 200s with the rate-limit headers, then a 429.
    for (let i = 0; i < 5; i++) answers.push(await limited.get('/api/v1/products'));
    answers.push(await app.server.inject({ method: 'GET', url: '/healthz' }));
    const statuses = answers.map((res) => res.statusCode);
    expect(statuses).toEqual([200, 200, 200, 200, 429, 200]);
    const paths = ['/api/v1/products', '/api/v1/products', '/api/v1/products', '/api/v1/products'];
    paths.push('/api/v1/products', '/healthz');
    const CONTRACT_HEADERS = [
      'x-request-id',
      'x-ratelimit-limit',
      'x-ratelimit-remaining',
      'x-ratelimit-reset',
      'retry-after',
    ];
    const undeclared = answers.flatMap((res, i) => {
      const path = paths[i] as string;
      const declared = Object.keys(document.paths[path]?.get?.responses[res.statusCode]?.headers ?? {});
      const lower = declared.map((name) => name.toLowerCase());
      return CONTRACT_HEADERS.filter((name) => res.headers[name] !== undefined && !lower.includes(name)).map(
        (name) => `GET ${path} ${res.statusCode} ${name}`,
      );
    });
    expect(undeclared).toEqual([]);
    expect(answers[4]?.headers['retry-after']).toBeDefined();
  });
});
