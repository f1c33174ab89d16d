import { createConfig, lintFromString, type NormalizedProblem } from '@redocly/openapi-core';
import pino from 'pino';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openApiDocument } from '../../src/openapi-document.js';

/**
 * The document `emporium openapi` prints (and /openapi.json serves), built from the route schemas
 * without a database, linted with Redocly's `recommended` ruleset: the typed SDK is generated from it.
 */
interface Operation {
  operationId?: string;
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

describe('the OpenAPI document', () => {
  it.each(Object.keys(environments))(
    'lints clean with the recommended rules, no error and no warning (%s)',
    async (label) => {
      const config = await createConfig({ extends: ['recommended'] });
      const problems = await lintFromString({
        source: JSON.stringify(documents[label]),
        absoluteRef: 'openapi.json',
        config,
      });
      expect(problems.map(describeProblem)).toEqual([]);
    },
  );

  it('names PUBLIC_URL as the server, or the serving host itself for a local address', () => {
    expect(documents.deployed?.servers).toEqual([expect.objectContaining({ url: 'https://shop.acme.test' })]);
    expect(documents.local?.servers).toEqual([expect.objectContaining({ url: '/' })]);
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
      if (path === '/api/storefront/{slug}/app-config' && entry.method === 'put')
        return [{ apiKey: [] }, { adminSession: [] }];
      // Checkout and carts take an optional customer session: the order (or cart) is then that customer's.
      if (/^\/api\/storefront\/\{slug\}\/(checkout(\/quote)?$|carts($|\/))/.test(path))
        return [{}, { customerSession: [] }, { customerBearer: [] }];
      if (path.startsWith('/api/storefront/')) return [];
      // Stripe's webhook: authenticated by its signature, not by a credential of ours.
      if (path.startsWith('/api/payments/stripe/')) return [];
      if (path.startsWith('/api/v1/')) return [{ apiKey: [] }, { adminSession: [] }];
      if (path.startsWith('/api/admin/')) return [{ adminSession: [] }];
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
