import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertSession } from '../../src/modules/customer-accounts/customer-accounts.repository.js';
import { MAX_PAGE } from '../../src/platform/http/envelopes.js';
import { MAX_JSON_DEPTH } from '../../src/platform/http/input-guard.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { client, createCategory, createProduct, UNLIMITED } from '../helpers/catalog-factories.js';
import { createCustomers, createStoreWithKey } from '../helpers/factories.js';
import { createOrder } from '../helpers/order-factories.js';

/**
 * Hostile input on every operation of the OpenAPI document (never a hand-written route list): a NUL
 * character in any string (path, query, body, property names), out-of-range pagination and deeply
 * nested bodies are 4xx in the error envelope, never 5xx.
 */

// biome-ignore lint/suspicious/noExplicitAny: JSON Schema documents are walked generically.
type Schema = Record<string, any>;
interface Operation {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  parameters: { in: 'path' | 'query'; name: string; schema: Schema }[];
  body?: Schema;
}

const ORIGIN = 'http://localhost:3000';
const PASSWORD = 'correct horse battery';
const NUL = '\u0000';

let app: TestApp;
let operations: Operation[];
let slug: string;
let apiKey: string;
let adminCookie: string;
let operatorCookie: string;
let customerToken: string;
/** Real ids, so a request with one bad field still reaches the code behind its route. */
const ids: Record<string, string> = {};
let ip = 0;

beforeAll(async () => {
  app = await buildTestApp({ config: { ...UNLIMITED, publicUrl: ORIGIN, allowPrivateUrls: true } });
  const store = await createStoreWithKey(app);
  slug = store.store.slug;
  apiKey = store.key;
  const api = client(app, apiKey);
  const product = await createProduct(api, { inventory: 100 });
  ids.product = product.id;
  ids.productSlug = product.slug;
  ids.category = (await createCategory(api)).id;
  const order = await createOrder(api, { items: [{ product_id: product.id, quantity: 1 }] });
  ids.order = order.id;
  ids.orderNumber = order.order_number;
  const discount = await api.post('/api/v1/discounts', {
    code: `C${randomBytes(3).toString('hex')}`,
    type: 'percentage',
    value: '10',
  });
  ids.discount = discount.json().data.id;
  const webhook = await api.post('/api/v1/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['*'] });
  ids.webhook = webhook.json().data.id;

  const email = `owner.${randomBytes(4).toString('hex')}@example.com`;
  await app.services.stores.createAdminUser({ email, password: PASSWORD, storeSlug: slug });
  const login = await app.server.inject({
    method: 'POST',
    url: '/api/admin/auth/login',
    payload: { email, password: PASSWORD },
  });
  expect(login.statusCode, login.body).toBe(200);
  adminCookie = String(login.headers['set-cookie']).split(';')[0] as string;
  const operator = { email: `ops.${randomBytes(4).toString('hex')}@example.com`, password: PASSWORD };
  await app.services.operators.createOperator(operator);
  const operatorLogin = await app.server.inject({
    method: 'POST',
    url: '/api/operator/auth/login',
    headers: { origin: ORIGIN },
    payload: operator,
  });
  expect(operatorLogin.statusCode, operatorLogin.body).toBe(200);
  operatorCookie = String(operatorLogin.headers['set-cookie']).split(';')[0] as string;

  const [customer] = await createCustomers(app, store.store.id, 1);
  ids.customer = customer?.id as string;
  customerToken = `cs_${randomBytes(32).toString('base64url')}`;
  await insertSession(app.database.db, {
    id: randomUUID(),
    store_id: store.store.id,
    customer_id: ids.customer,
    token_hash: createHash('sha256').update(customerToken).digest(),
    expires_at: new Date(Date.now() + 86_400_000),
  });

  operations = operationsOf(app.server.swagger() as unknown as Schema);
});
afterAll(() => app.close());

function operationsOf(document: Schema): Operation[] {
  const found: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths as Record<string, Schema>)) {
    for (const [method, op] of Object.entries(item)) {
      found.push({
        method: method.toUpperCase() as Operation['method'],
        path,
        parameters: (op.parameters ?? []).filter((p: Schema) => p.in === 'path' || p.in === 'query'),
        body: op.requestBody?.content?.['application/json']?.schema,
      });
    }
  }
  return found;
}

/** A realistic value for a path parameter, so the other parameters are not what decides. */
function pathValue(op: Operation, name: string): string {
  if (name === 'slug') return slug;
  if (name === 'productSlug') return ids.productSlug as string;
  if (name === 'orderNumber') return ids.orderNumber as string;
  if (name === 'productId') return ids.product as string;
  const resource = op.path.split('/')[3];
  const byResource: Record<string, string | undefined> = {
    products: ids.product,
    inventory: ids.product,
    categories: ids.category,
    orders: ids.order,
    customers: ids.customer,
    discounts: ids.discount,
    webhooks: ids.webhook,
  };
  return byResource[resource ?? ''] ?? randomUUID();
}

function urlOf(op: Operation, override: Record<string, string> = {}, query = ''): string {
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) =>
    encodeURIComponent(override[name] ?? pathValue(op, name)),
  );
  return query ? `${path}?${query}` : path;
}

/** Every request carries the credentials its audience needs; each comes from its own client IP. */
function send(op: Operation, url: string, payload?: string) {
  const headers: Record<string, string> = { origin: ORIGIN };
  if (op.path.startsWith('/api/admin')) headers.cookie = adminCookie;
  else if (op.path.startsWith('/api/operator')) headers.cookie = operatorCookie;
  else {
    headers['x-api-key'] = apiKey;
    headers.authorization = `Bearer ${customerToken}`;
  }
  if (payload !== undefined) headers['content-type'] = 'application/json';
  ip += 1;
  const options: InjectOptions = {
    method: op.method,
    url,
    headers,
    remoteAddress: `10.${(ip >> 16) & 255}.${(ip >> 8) & 255}.${ip & 255}`,
    ...(payload === undefined ? {} : { payload }),
  };
  return app.server.inject(options);
}

// --- a small JSON Schema sampler: minimally valid values, and the paths of every string in a body ---

const nonNull = (s: Schema): Schema[] =>
  ((s.anyOf ?? s.oneOf ?? [s]) as Schema[]).filter((b) => b.type !== 'null');

function sampleString(s: Schema): string {
  if (s.format === 'email') return 'walker@example.com';
  if (s.format === 'date-time') return '2026-01-01T00:00:00.000Z';
  if (s.format === 'date') return '2026-01-01';
  if (s.format === 'uri') return 'https://example.com/x';
  const candidates = ['sample', '19.99', 'USD', '#336699', 'US', '1', 'x'.repeat(s.minLength ?? 1)];
  const fits = (c: string) =>
    (!s.pattern || new RegExp(s.pattern, 'u').test(c)) &&
    c.length >= (s.minLength ?? 0) &&
    c.length <= (s.maxLength ?? Number.POSITIVE_INFINITY);
  return candidates.find(fits) ?? 'x';
}

function sample(s: Schema): unknown {
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.enum)) return s.enum[0];
  if (s.anyOf || s.oneOf) return sample(nonNull(s)[0] ?? { type: 'null' });
  switch (s.type) {
    case 'object': {
      const value: Record<string, unknown> = {};
      for (const name of (s.required ?? []) as string[])
        value[name] = /^product_?id$/i.test(name) ? ids.product : sample(s.properties[name]);
      const first = Object.keys(s.properties ?? {})[0];
      if ((s.minProperties ?? 0) > Object.keys(value).length && first)
        value[first] = sample(s.properties[first]);
      return value;
    }
    case 'array':
      return (s.minItems ?? 0) > 0 ? [sample(s.items)] : [];
    case 'string':
      return sampleString(s);
    case 'integer':
    case 'number':
      return Math.max(s.minimum ?? 1, 1);
    case 'boolean':
      return false;
    case 'null':
      return null;
    default:
      return 'sample';
  }
}

type Step = string | number;
interface StringLeaf {
  path: Step[];
  schema: Schema;
}

/** Every place a string can go: object properties (optional ones too), array items, map values. */
function stringLeaves(s: Schema, path: Step[] = []): StringLeaf[] {
  const leaves: StringLeaf[] = [];
  for (const branch of nonNull(s)) {
    if (branch.type === 'string' || branch.type === undefined) {
      if (!branch.properties && !branch.items) leaves.push({ path, schema: branch });
    } else if (branch.type === 'object') {
      for (const [name, child] of Object.entries((branch.properties ?? {}) as Record<string, Schema>))
        leaves.push(...stringLeaves(child, [...path, name]));
      const values = branch.additionalProperties ?? Object.values(branch.patternProperties ?? {})[0];
      if (values && typeof values === 'object') leaves.push(...stringLeaves(values, [...path, 'key']));
    } else if (branch.type === 'array') {
      leaves.push(...stringLeaves(branch.items, [...path, 0]));
    }
  }
  // A union of string literals is one place, not one per literal.
  return leaves.filter((leaf, i) => leaves.findIndex((l) => l.path.join('.') === leaf.path.join('.')) === i);
}

/** The minimally valid body with one string replaced by a value that carries a NUL. */
function bodyWithNul(root: Schema, leaf: StringLeaf): unknown {
  const body = sample(root) as Record<Step, unknown>;
  let container: Record<Step, unknown> = body;
  let schema = root;
  leaf.path.forEach((step, i) => {
    const branch =
      nonNull(schema).find((b) => (typeof step === 'number' ? b.type === 'array' : b.type === 'object')) ??
      schema;
    const child: Schema =
      typeof step === 'number'
        ? branch.items
        : (branch.properties?.[step] ??
          branch.additionalProperties ??
          Object.values(branch.patternProperties ?? {})[0] ??
          {});
    if (i === leaf.path.length - 1) {
      const text = sampleString(leaf.schema);
      container[step] = `${text.slice(0, 1)}${NUL}${text.slice(1)}`;
      return;
    }
    if (container[step] === undefined || container[step] === null) {
      const made = sample(child);
      container[step] = Array.isArray(made) && made.length === 0 ? [sample(child.items ?? {})] : made;
    }
    const next = container[step];
    container[step] = Array.isArray(next) && next.length === 0 ? [sample(child.items ?? {})] : next;
    container = container[step] as Record<Step, unknown>;
    schema = child;
  });
  return body;
}

const acceptsString = (s: Schema) => nonNull(s).some((b) => b.type === 'string');

interface Outcome {
  request: string;
  status: number;
  code?: string;
  field?: string;
}

async function outcome(label: string, response: Awaited<ReturnType<typeof send>>): Promise<Outcome> {
  const body = response.headers['content-type']?.toString().includes('json') ? response.json() : {};
  return {
    request: label,
    status: response.statusCode,
    code: body?.error?.code,
    field: body?.error?.details?.[0]?.field,
  };
}

describe('a NUL character anywhere is 400 invalid_request naming the field, on every operation', () => {
  it('walks the OpenAPI document: path parameters, string query parameters and every string of every body', async () => {
    const results: { expected: string; got: Outcome }[] = [];
    for (const op of operations) {
      for (const param of op.parameters) {
        if (param.in === 'path') {
          const url = urlOf(op, { [param.name]: `a${NUL}b` });
          const got = await outcome(`${op.method} ${url}`, await send(op, url));
          results.push({ expected: param.name, got });
        } else if (acceptsString(param.schema)) {
          const url = urlOf(op, {}, `${param.name}=a%00b`);
          const got = await outcome(`${op.method} ${url}`, await send(op, url));
          results.push({ expected: param.name, got });
        }
      }
      if (op.body) {
        for (const leaf of stringLeaves(op.body)) {
          const field = leaf.path.join('.') || 'body';
          const got = await outcome(
            `${op.method} ${op.path} body ${field}`,
            await send(op, urlOf(op), JSON.stringify(bodyWithNul(op.body, leaf))),
          );
          results.push({ expected: field, got });
        }
      }
    }
    const operationsWalked = new Set(results.map((r) => r.got.request.split(' ').slice(0, 2).join(' ')));
    const serverErrors = results.filter((r) => r.got.status >= 500);
    const wrong = results.filter(
      (r) => r.got.status !== 400 || r.got.code !== 'invalid_request' || r.got.field !== r.expected,
    );
    console.info(
      `NUL walk: ${operations.length} operations, ${results.length} requests; ` +
        `${serverErrors.length} answered 5xx, ${wrong.length} not 400 naming the field`,
    );
    // A sanity check of the walk itself: the document has routes of every audience with strings.
    expect(results.length).toBeGreaterThan(150);
    expect(operationsWalked.size).toBeGreaterThan(40);
    expect(wrong.map((r) => ({ ...r.got, expected: r.expected }))).toEqual([]);
  });

  it('a NUL in a property name of free-form JSON, or in a repeated query parameter, is refused too', async () => {
    const put = await app.server.inject({
      method: 'PUT',
      url: `/api/storefront/${slug}/app-config`,
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      payload: JSON.stringify({ theme: { [`da${NUL}rk`]: true } }),
    });
    expect(put.statusCode, put.body).toBe(400);
    expect(put.json().error).toMatchObject({ code: 'invalid_request', details: [{ field: 'theme' }] });
    const repeated = await app.server.inject({
      method: 'GET',
      url: `/api/storefront/${slug}/products?q=ok&q=a%00`,
    });
    expect(repeated.statusCode).toBe(400);
    expect(repeated.json().error.details[0].field).toBe('q.1');
  });
});

/** One raw HTTP/1.1 request (inject cannot send what a real client could). */
async function rawRequest(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(text));
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk;
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(answer));
    setTimeout(() => socket.end(), 1000).unref();
  });
}

describe('a NUL character in a header', () => {
  it('never reaches a route: the HTTP parser answers 400', async () => {
    await app.server.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.server.address() as AddressInfo;
    for (const header of [
      `X-API-Key: ${apiKey}${NUL}`,
      `Idempotency-Key: a${NUL}b`,
      `Cookie: ${adminCookie}${NUL}`,
    ]) {
      const answer = await rawRequest(
        port,
        `GET /api/v1/products HTTP/1.1\r\nHost: localhost\r\n${header}\r\nConnection: close\r\n\r\n`,
      );
      expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    }
  });
});

const BAD_PAGE_VALUES = ['Infinity', '-Infinity', '1e300', '-1', '0', '1.5', 'abc', 'NaN', ''];

describe('pagination: one schema, page 1…MAX_PAGE and limit 1…100, on every list', () => {
  it('every operation with page/limit refuses out-of-range values and accepts the maximum', async () => {
    const lists = operations.filter((op) =>
      op.parameters.some((p) => p.in === 'query' && (p.name === 'page' || p.name === 'limit')),
    );
    expect(lists.length).toBeGreaterThanOrEqual(10);
    const wrong: unknown[] = [];
    for (const op of lists) {
      for (const name of ['page', 'limit'] as const) {
        const param = op.parameters.find((p) => p.in === 'query' && p.name === name);
        if (!param) continue;
        // The document shows the bounds.
        const bounds = [param.schema.minimum, param.schema.maximum];
        if (bounds[0] !== 1 || bounds[1] !== (name === 'page' ? MAX_PAGE : 100))
          wrong.push({ documented: `${op.path} ${name}`, bounds });
        for (const value of [...BAD_PAGE_VALUES, name === 'page' ? String(MAX_PAGE + 1) : '101']) {
          const url = urlOf(op, {}, `${name}=${encodeURIComponent(value)}`);
          const got = await outcome(`${op.method} ${url}`, await send(op, url));
          if (got.status !== 400 || got.code !== 'invalid_request' || got.field !== name) wrong.push(got);
        }
        const max = name === 'page' ? MAX_PAGE : 100;
        const url = urlOf(op, {}, `${name}=${max}`);
        const res = await send(op, url);
        const got = await outcome(`${op.method} ${url}`, res);
        if (got.status !== 200) wrong.push(got);
        else if (res.json().meta) expect(res.json().meta.pagination[name]).toBe(max);
      }
    }
    expect(wrong).toEqual([]);
  });
});

describe('nesting depth', () => {
  /** `{"a":{"a":…1…}}`, written as text: JSON.stringify itself would overflow the stack. */
  const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

  it(`app-config nested ${MAX_JSON_DEPTH} levels is saved; 33 or 5,000 levels are 400 naming the field`, async () => {
    const put = (payload: string) =>
      app.server.inject({
        method: 'PUT',
        url: `/api/storefront/${slug}/app-config`,
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        payload,
      });
    const fits = nested(MAX_JSON_DEPTH);
    expect((await put(fits)).statusCode).toBe(200);
    for (const depth of [MAX_JSON_DEPTH + 1, 5_000]) {
      const res = await put(nested(depth));
      expect(res.statusCode, res.body.slice(0, 300)).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
      expect(res.json().error.details[0].field).toBe(Array(MAX_JSON_DEPTH).fill('a').join('.'));
    }
    const stored = await app.server.inject({ method: 'GET', url: `/api/storefront/${slug}/app-config` });
    expect(stored.json().data).toEqual(JSON.parse(fits));
  });

  it('a 100,000-deep array is 400 on every operation with a body, never 5xx', async () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const deepObject = `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`;
    // Deep and carrying what the parser's prototype-poisoning scan looks for.
    const deepPoison = `${'{"a":'.repeat(100_000)}{"constructor":{"prototype":{"__proto__":1}}}${'}'.repeat(100_000)}`;
    const wrong: unknown[] = [];
    for (const op of operations.filter((o) => o.body)) {
      for (const payload of [deep, deepObject, deepPoison]) {
        const got = await outcome(`${op.method} ${op.path}`, await send(op, urlOf(op), payload));
        if (got.status !== 400 || got.code !== 'invalid_request') wrong.push(got);
      }
    }
    expect(wrong).toEqual([]);
  });
});
