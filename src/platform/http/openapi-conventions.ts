import { IDEMPOTENCY_KEY_PATTERN } from './idempotency.js';

/**
 * The platform's HTTP conventions as the OpenAPI document states them, for generated clients:
 * they come from hooks rather than from each route's schema, so they are added to the document
 * once built (swagger's `transformObject`) instead of to every route's validation schemas.
 *
 * - `Idempotency-Key` is a header parameter of every operation that honours it (`x-idempotent`);
 * - a body the route takes as optional (`Type.Optional(...)`: `x-optional-body`, validation.ts) is
 *   not required (swagger marks every body required);
 * - an operation that can answer 412 takes `If-Match`, and its 2xx answers (and those of a `GET`
 *   marked `x-etag`) carry the `ETag` (etag.ts);
 * - `X-Request-Id` is declared on every response, the `X-RateLimit-*` trio on every `/api/v1`
 *   response, `Retry-After` on every 429 and 503 (contract §2 and §3).
 */

type Json = Record<string, unknown>;

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

const integerHeader = (description: string, required = false) => ({
  description,
  ...(required ? { required: true } : {}),
  schema: { type: 'integer', minimum: 0 },
});

const REQUEST_ID = {
  'X-Request-Id': {
    description: 'The request id, also in the server logs (quote it when reporting a problem)',
    required: true,
    schema: { type: 'string' },
  },
};

const RATE_LIMIT = {
  'X-RateLimit-Limit': integerHeader('Requests allowed per window (a minute) for this API key'),
  'X-RateLimit-Remaining': integerHeader('Requests left in the current window'),
  'X-RateLimit-Reset': integerHeader('Whole seconds until the window resets'),
};

const RETRY_AFTER = {
  'Retry-After': integerHeader('Seconds to wait before sending the request again', true),
};

const ETAG = {
  ETag: {
    description: 'The version of the resource: send it back as `If-Match` to change only this version',
    required: true,
    schema: { type: 'string' },
  },
};

export const IF_MATCH_PARAMETER = {
  name: 'If-Match',
  in: 'header',
  required: false,
  description:
    'The `ETag` the change was based on (or `*`): if the resource has another version now, nothing is changed and the answer is 412 `precondition_failed`. Without it the change is applied whatever the version. A malformed value is 400.',
  schema: { type: 'string' },
};

export const IDEMPOTENCY_KEY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Any unique string (a UUID): the same key and body within 24 h returns the first answer and creates nothing new; the same key with another body is 409',
  schema: { type: 'string', pattern: IDEMPOTENCY_KEY_PATTERN },
};

/** The document with the conventions added (a copy of the operations it changes; the input is kept). */
export function withHttpConventions<T extends { paths?: Json }>(document: T): T {
  const paths: Json = {};
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    const copy: Json = { ...(item as Json) };
    for (const method of METHODS) {
      const operation = copy[method] as Json | undefined;
      if (operation) copy[method] = operationWithConventions(path, operation);
    }
    paths[path] = copy;
  }
  return { ...document, paths };
}

function operationWithConventions(path: string, operation: Json): Json {
  const parameters = [...((operation.parameters as Json[] | undefined) ?? [])];
  if (operation['x-idempotent'] === true) parameters.push(IDEMPOTENCY_KEY_PARAMETER);
  const conditional = '412' in ((operation.responses as Json | undefined) ?? {});
  if (conditional) parameters.push(IF_MATCH_PARAMETER);
  const versioned = conditional || operation['x-etag'] === true;
  const responses: Json = {};
  for (const [status, response] of Object.entries((operation.responses as Json | undefined) ?? {})) {
    const headers = {
      ...((response as Json).headers as Json | undefined),
      ...REQUEST_ID,
      ...(path.startsWith('/api/v1/') ? RATE_LIMIT : {}),
      ...(status === '429' || status === '503' ? RETRY_AFTER : {}),
      ...(versioned && status.startsWith('2') ? ETAG : {}),
    };
    responses[status] = { ...(response as Json), headers };
  }
  const { 'x-optional-body': optionalBody, 'x-etag': _etag, ...rest } = operation;
  const requestBody =
    optionalBody === true && rest.requestBody
      ? { ...(rest.requestBody as Json), required: false }
      : undefined;
  return {
    ...rest,
    ...(requestBody ? { requestBody } : {}),
    ...(parameters.length ? { parameters } : {}),
    responses,
  };
}
