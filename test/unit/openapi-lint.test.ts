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
type Document = { paths: Record<string, Record<string, Operation>> } & Record<string, unknown>;

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace']);

let document: Document;
let operations: { method: string; path: string; operation: Operation }[];

beforeAll(async () => {
  // The environment the `openapi` command runs in by default (PUBLIC_URL unset: localhost).
  document = (await openApiDocument(loadConfig({}), pino({ level: 'silent' }))) as Document;
  operations = Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.has(method))
      .map(([method, operation]) => ({ method, path, operation })),
  );
}, 60_000);

function describeProblem(problem: NormalizedProblem): string {
  const where = problem.location.map((location) => location.pointer).join(', ');
  return `${problem.severity} ${problem.ruleId} at ${where}: ${problem.message}`;
}

describe('the OpenAPI document', () => {
  it('lints clean with the recommended rules: no error, no warning', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({
      source: JSON.stringify(document),
      absoluteRef: 'openapi.json',
      config,
    });
    expect(problems.map(describeProblem)).toEqual([]);
  });

  it('names every operation with a unique camelCase operationId', () => {
    expect(operations.length).toBeGreaterThan(50);
    const missing = operations.filter(({ operation }) => !operation.operationId);
    expect(missing.map(({ method, path }) => `${method.toUpperCase()} ${path}`)).toEqual([]);
    const ids = operations.map(({ operation }) => operation.operationId as string);
    expect(ids.filter((id) => !/^[a-z][a-zA-Z0-9]*$/.test(id))).toEqual([]);
    expect(ids.filter((id, index) => ids.indexOf(id) !== index)).toEqual([]);
  });

  it('documents at least one 4xx answer, with the error body, on every operation', () => {
    const without = operations.filter(
      ({ operation }) => !Object.keys(operation.responses ?? {}).some((status) => /^4\d\d$/.test(status)),
    );
    expect(without.map(({ method, path }) => `${method.toUpperCase()} ${path}`)).toEqual([]);
  });

  it('declares security on every operation, public ones with an explicit empty list', () => {
    const undeclared = operations.filter(({ operation }) => operation.security === undefined);
    expect(undeclared.map(({ method, path }) => `${method.toUpperCase()} ${path}`)).toEqual([]);
  });
});
