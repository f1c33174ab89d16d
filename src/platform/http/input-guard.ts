import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type ErrorDetail, invalidRequest } from './errors.js';

/**
 * How deeply a request body may nest objects and arrays. The deepest body of the API (a product's
 * variant options) nests 4 levels; free-form JSON (the mobile app config) gets the rest. Anything
 * deeper is refused before validation, so no recursive code (serialisers, the database driver)
 * ever meets a body deep enough to exhaust the stack.
 */
export const MAX_JSON_DEPTH = 32;

const NUL = '\u0000';
const NUL_MESSAGE = 'must not contain a NUL character (\\u0000)';

/**
 * The first NUL character (in a value or a property name) or container nested deeper than
 * `maxDepth` in `value`, named as validation errors name fields (`items.0.name`; `context` for the
 * value itself). Iterative, so a hostile document cannot exhaust the stack here either.
 */
export function findHostileInput(
  value: unknown,
  context: string,
  maxDepth = MAX_JSON_DEPTH,
): ErrorDetail | undefined {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value, path: '', depth: 0 }];
  const field = (path: string) => path || context;
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { value: current, path, depth } = item;
    if (typeof current === 'string') {
      if (current.includes(NUL)) return { field: field(path), message: NUL_MESSAGE };
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    if (depth >= maxDepth) return { field: field(path), message: `nests deeper than ${maxDepth} levels` };
    const prefix = path ? `${path}.` : '';
    const entries = Array.isArray(current)
      ? current.map((child, i) => [String(i), child] as const)
      : Object.entries(current);
    // Pushed in reverse so the first field of the document is the one reported.
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, child] = entries[i] as readonly [string, unknown];
      if (key.includes(NUL))
        return { field: field(path), message: 'has a property name containing a NUL character (\\u0000)' };
      stack.push({ value: child, path: `${prefix}${key}`, depth: depth + 1 });
    }
  }
  return undefined;
}

/**
 * Refuses, for every route, before validation: a NUL character anywhere in the path parameters,
 * the query string or the body (PostgreSQL cannot store it in text or jsonb), and bodies nested
 * deeper than MAX_JSON_DEPTH. 400 invalid_request naming the field, like a validation error.
 * Headers need no check: Node's HTTP parser refuses control characters in them.
 */
export function installInputGuard(app: FastifyInstance): void {
  app.addHook('preValidation', async (request: FastifyRequest) => {
    const parts: [unknown, string][] = [
      [request.params, 'params'],
      [request.query, 'querystring'],
      [request.body, 'body'],
    ];
    for (const [value, context] of parts) {
      const found = findHostileInput(value, context);
      if (found) throw invalidRequest(`${found.field} ${found.message}`, [found]);
    }
  });
}
