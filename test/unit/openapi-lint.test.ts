import { createConfig, lintFromString, type NormalizedProblem } from '@redocly/openapi-core';
import pino from 'pino';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openApiDocument } from '../../src/openapi-document.js';

/**
 * The document `emporium openapi` prints (and /openapi.json serves), built from the route schemas
 * without a database, linted with Redocly's `recommended` ruleset: the typed SDK is generated from it.
 */
interface Schema {
  enum?: unknown[];
  items?: Schema;
  properties?: Record<string, Schema>;
}
interface Operation {
  operationId?: string;
  parameters?: { name: string; in: string }[];
  'x-idempotent'?: boolean;
  responses?: Record<string, unknown>;
  security?: unknown[];
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  servers?: unknown;
  [key: string]: unknown;
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace']);

type Entry = { method: string; path: string; operation: Operation };

function operationsOf(document: Document): Entry[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.has(method))
      .map(([method, operation]) => ({ method, path, operation })),
  );
}

const name = ({ method, path }: Entry) => `${method.toUpperCase()} ${path}`;

/** The `openapi` command's default environment (PUBLIC_URL unset: localhost) and a deployment's. */
const environments = {
  local: {},
  deployed: { PUBLIC_URL: 'https://shop.acme.test' },
};
const documents: Record<string, Document> = {};
let document: Document;
let operations: Entry[];

beforeAll(async () => {
  for (const [label, env] of Object.entries(environments)) {
    documents[label] = (await openApiDocument(loadConfig(env), pino({ level: 'silent' }))) as Document;
  }
  document = documents.local as Document;
  operations = operationsOf(document);
}, 60_000);

function describeProblem(problem: NormalizedProblem): string {
  const where = problem.location.map((location) => location.pointer).join(', ');
  return `${problem.severity} ${problem.ruleId} at ${where}: ${problem.message}`;
}

/**
 * Path overlaps the contract itself defines (§13): `/notifications/{id}/resend` and
 * `/notifications/templates/{kind}` would both match `/notifications/templates/resend`. Routers take
 * the static segment first, the two are different methods, and an id is a UUID, never "templates".
 */
const CONTRACT_PATH_OVERLAPS = [
  '`/api/v1/notifications/{id}/resend` and `/api/v1/notifications/templates/{kind}`',
];
const isContractOverlap = (problem: string) =>
  problem.includes('no-ambiguous-paths') && CONTRACT_PATH_OVERLAPS.some((pair) => problem.includes(pair));

describe('the OpenAPI document', () => {
  it.each(Object.keys(environments))(
    'lints clean with the recommended rules, no error and no warning (%s)',
    async (label) => {
      // Without PUBLIC_URL the server is the development default, http://localhost:PORT, which is
      // what that install's clients call; the rule is for published documents (the deployed one).
      const rules = label === 'local' ? { 'no-server-example.com': 'off' as const } : undefined;
      const config = await createConfig({ extends: ['recommended'], rules });
      const problems = await lintFromString({
        source: JSON.stringify(documents[label]),
        absoluteRef: 'openapi.json',
        config,
      });
      expect(problems.map(describeProblem).filter((problem) => !isContractOverlap(problem))).toEqual([]);
    },
  );

  it('names PUBLIC_URL as the server, local or not (a generated client needs an absolute URL)', () => {
    expect(documents.deployed?.servers).toEqual([expect.objectContaining({ url: 'https://shop.acme.test' })]);
    expect(documents.local?.servers).toEqual([expect.objectContaining({ url: loadConfig({}).publicUrl })]);
    expect(loadConfig({}).publicUrl).toMatch(/^http:\/\/localhost:\d+$/);
  });

  it('declares Idempotency-Key as a header parameter of exactly the operations that honour it', () => {
    const withKey = operations.filter(({ operation }) =>
      (operation.parameters ?? []).some((p) => p.in === 'header' && p.name === 'Idempotency-Key'),
    );
    const honouring = operations.filter(({ operation }) => operation['x-idempotent'] === true);
    expect(withKey.map(name)).toEqual(honouring.map(name));
    expect(withKey.map(name)).toEqual(
      expect.arrayContaining([
        'POST /api/v1/products',
        'POST /api/v1/orders',
        'POST /api/v1/orders/{id}/refunds',
        'POST /api/v1/discounts',
        'POST /api/v1/webhooks',
        'POST /api/storefront/{slug}/checkout',
      ]),
    );
  });

  it('declares X-Request-Id on every response, X-RateLimit-* on /api/v1, Retry-After on 429 and 503', () => {
    const missing = operations.flatMap((entry) => {
      const responses = Object.entries(entry.operation.responses ?? {});
      const statuses = responses.map(([status]) => status);
      const problems = statuses.includes('503') ? [] : [`${name(entry)}: no 503`];
      for (const [status, response] of responses) {
        const expected = ['X-Request-Id'];
        if (entry.path.startsWith('/api/v1/'))
          expected.push('X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset');
        if (status === '429' || status === '503') expected.push('Retry-After');
        const declared = Object.keys((response as { headers?: object }).headers ?? {});
        for (const header of expected.filter((h) => !declared.includes(h)))
          problems.push(`${name(entry)} ${status} ${header}`);
      }
      return problems;
    });
    expect(missing).toEqual([]);
  });

  it('says a fixed set of strings as one enum, in requests and answers alike', () => {
    // A union of literals (anyOf of consts) fails validation once per literal and reads poorly.
    const unions: string[] = [];
    const walk = (node: unknown, at: string) => {
      if (Array.isArray(node)) {
        for (const [i, child] of node.entries()) walk(child, `${at}/${i}`);
        return;
      }
      if (node === null || typeof node !== 'object') return;
      const anyOf = (node as { anyOf?: unknown[] }).anyOf;
      if (anyOf?.length && anyOf.every((option) => (option as { const?: unknown })?.const !== undefined))
        unions.push(at);
      for (const [key, child] of Object.entries(node)) walk(child, `${at}/${key}`);
    };
    walk(document, '#');
    expect(unions).toEqual([]);
    const schemas = (document.components as { schemas: Record<string, Schema> }).schemas;
    const enumOf = (schema: Schema | undefined, ...path: string[]) => {
      let at = schema;
      for (const key of path) at = key === '[]' ? at?.items : at?.properties?.[key];
      return at?.enum;
    };
    const order = schemas.Order;
    expect(enumOf(order, 'status')).toEqual(['pending', 'processing', 'on_hold', 'completed', 'cancelled']);
    expect(enumOf(order, 'payment_status')).toContain('partially_refunded');
    expect(enumOf(order, 'fulfillment_status')).toEqual(['unfulfilled', 'fulfilled']);
    expect(enumOf(schemas.OrderSummary, 'payment_status')).toContain('paid');
    expect(enumOf(schemas.CustomerOrder, 'paymentStatus')).toContain('paid');
    expect(enumOf(schemas.CustomerOrder, 'fulfillmentStatus')).toEqual(['unfulfilled', 'fulfilled']);
    expect(enumOf(schemas.Webhook, 'events', '[]')).toContain('order.created');
    expect(enumOf(schemas.DeliveryAttempt, 'event_type')).toContain('order.refunded');
    expect(enumOf(schemas.Refund, 'provider')).toEqual(['manual', 'test_card', 'stripe']);
    expect(enumOf(schemas.ErrorBody, 'error', 'code')).toEqual(expect.arrayContaining(['invalid_request']));
    const analytics = document.paths['/api/v1/analytics']?.get?.responses?.['200'] as {
      content: { 'application/json': { schema: Schema } };
    };
    expect(enumOf(analytics.content['application/json'].schema, 'data', 'interval')).toEqual([
      'day',
      'week',
      'month',
    ]);
  });

  it('names every operation with a unique camelCase operationId', () => {
    expect(operations.length).toBeGreaterThan(50);
    expect(operations.filter(({ operation }) => !operation.operationId).map(name)).toEqual([]);
    const ids = operations.map(({ operation }) => operation.operationId as string);
    expect(ids.filter((id) => !/^[a-z][a-zA-Z0-9]*$/.test(id))).toEqual([]);
    expect(ids.filter((id, index) => ids.indexOf(id) !== index)).toEqual([]);
  });

  it('documents at least one 4xx answer on every operation, each with the error envelope', () => {
    const without = operations.filter(
      ({ operation }) => !Object.keys(operation.responses ?? {}).some((status) => /^4\d\d$/.test(status)),
    );
    expect(without.map(name)).toEqual([]);
    const notEnvelope = operations.flatMap((entry) =>
      Object.entries(entry.operation.responses ?? {})
        .filter(([status]) => /^4\d\d$/.test(status))
        .filter(([, response]) => {
          const schema = (response as { content?: Record<string, { schema?: { $ref?: string } }> }).content?.[
            'application/json'
          ]?.schema;
          return schema?.$ref !== '#/components/schemas/ErrorBody';
        })
        .map(([status]) => `${name(entry)} ${status}`),
    );
    expect(notEnvelope).toEqual([]);
  });

  it('adds the standard error responses by route kind', () => {
    const missing = operations.flatMap((entry) => {
      const expected = ['400'];
      if (entry.path.includes('{')) expected.push('404');
      if (['post', 'put', 'patch', 'delete'].includes(entry.method)) expected.push('413', '415');
      const security = JSON.stringify(entry.operation.security);
      if (security !== '[]') expected.push('401');
      if (security.includes('apiKey') || security.includes('adminSession')) expected.push('429');
      return expected
        .filter((status) => !(status in (entry.operation.responses ?? {})))
        .map((status) => `${name(entry)} ${status}`);
    });
    expect(missing).toEqual([]);
  });

  it('declares the security of each group: public ones with an explicit empty list', () => {
    const bySecurity = (entry: Entry) => {
      const { path } = entry;
      if (['/healthz', '/readyz', '/api/admin/auth/login'].includes(path)) return [];
      // Sign-up: no account yet.
      if (path === '/api/admin/signup' || path === '/api/admin/signup/verify') return [];
      // A reverse proxy's question before an on-demand certificate: public, it tells what DNS tells.
      if (path === '/api/operator/domains/check') return [];
      if (path === '/api/storefront/{slug}/app-config' && entry.method === 'put')
        return [{ apiKey: [] }, { adminSession: [] }];
      // Checkout, carts and notify-me take an optional customer session: the order (cart, sign-up) is
      // then that customer's.
      if (
        /^\/api\/storefront\/\{slug\}\/(checkout(\/quote)?$|carts($|\/)|products\/\{productSlug\}\/notify-me$)/.test(
          path,
        )
      )
        return [{}, { customerSession: [] }, { customerBearer: [] }];
      if (path.startsWith('/api/storefront/')) return [];
      // Stripe's webhook: authenticated by its signature, not by a credential of ours.
      if (path.startsWith('/api/payments/stripe/')) return [];
      if (path.startsWith('/api/v1/')) return [{ apiKey: [] }, { adminSession: [] }];
      // An invitation's link is its own credential: the invitee has no session yet.
      if (path.startsWith('/api/admin/invitations/')) return [];
      if (path.startsWith('/api/admin/')) return [{ adminSession: [] }];
      if (path === '/api/operator/auth/login') return [];
      if (path.startsWith('/api/operator/')) return [{ operatorSession: [] }];
      if (path.startsWith('/api/customer/') || path.startsWith('/api/mobile/'))
        return [{ customerSession: [] }, { customerBearer: [] }];
      return 'unknown group';
    };
    const wrong = operations
      .filter((entry) => JSON.stringify(entry.operation.security) !== JSON.stringify(bySecurity(entry)))
      .map((entry) => `${name(entry)}: ${JSON.stringify(entry.operation.security)}`);
    expect(wrong).toEqual([]);
  });
});
