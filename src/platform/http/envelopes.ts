import { type Static, type TSchema, Type } from 'typebox';
import { UUID_PATTERN } from '../ids.js';
import { ERROR_CODES } from './errors.js';
import { ERROR_HINT } from './validation-messages.js';

/**
 * One of a fixed set of strings, as a single `enum` (a union of literals would be `anyOf` of
 * `const`s: a failed check then reports once per literal, and generators read it less well).
 */
export const StringEnum = <const T extends readonly string[]>(
  values: T,
  options: { description?: string; default?: T[number] } = {},
) => Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });

/**
 * A query parameter naming a resource by id: a malformed one is a 400 naming the parameter, like
 * any bad input (rather than a list that is empty because nothing could match).
 */
export const IdFilter = (description: string, options: { orLiteral?: string } = {}) =>
  Type.String({
    pattern: options.orLiteral ? `^${options.orLiteral}$|${UUID_PATTERN}` : UUID_PATTERN,
    description,
    [ERROR_HINT]: 'must be an id (a UUID)',
  });

/** The seed's envelopes: one schema helper per shape, so every endpoint documents the same bodies. */
export const ErrorBody = Type.Object(
  {
    error: Type.Object({
      code: StringEnum(ERROR_CODES, {
        description:
          'invalid_request (400), unauthorized (401), payment_declined (402), forbidden (403), not_found (404), ' +
          'request_timeout (408: the request did not arrive within the time-out; the connection is closed), ' +
          'conflict or insufficient_stock (409), payload_too_large (413), unsupported_media_type (415), ' +
          'rate_limited (429), request_header_fields_too_large (431: request line and headers over 16 KiB), ' +
          'internal_error (500), unavailable (503), insufficient_storage (507: media storage full or not writable)',
      }),
      message: Type.String(),
      details: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
    }),
  },
  { $id: 'ErrorBody', description: 'Error envelope' },
);

/** A field that may be null: `T | null` in the schema and the OpenAPI document. */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const Pagination = Type.Object({
  page: Type.Integer(),
  limit: Type.Integer(),
  total: Type.Integer(),
  total_pages: Type.Integer(),
  has_next: Type.Boolean(),
  has_prev: Type.Boolean(),
});
export type Pagination = Static<typeof Pagination>;

export const DataEnvelope = <T extends TSchema>(data: T) => Type.Object({ data });

export const ListEnvelope = <T extends TSchema>(item: T) =>
  Type.Object({ data: Type.Array(item), meta: Type.Object({ pagination: Pagination }) });

/**
 * The highest page any list serves. Deeper pages of a big list are reached with its filters (dates,
 * status, search); the bound keeps offsets small and refuses `1e300` or `Infinity` as out of range.
 */
export const MAX_PAGE = 1_000_000;
export const MAX_LIMIT = 100;

/** The one pagination schema of every list: `page` 1…MAX_PAGE, `limit` 1…100 (default 20). */
export function pageQuery(options: { defaultLimit?: number } = {}) {
  const defaultLimit = options.defaultLimit ?? 20;
  return {
    page: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_PAGE,
        default: 1,
        description: `Page number, 1 to ${MAX_PAGE.toLocaleString('en-US')}`,
      }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_LIMIT,
        default: defaultLimit,
        description: `Items per page, 1 to ${MAX_LIMIT} (default ${defaultLimit})`,
      }),
    ),
  };
}

export const PageQuery = pageQuery();

export interface PageRequest {
  page: number;
  limit: number;
}

/** The validator fills the defaults; this only narrows the types. */
export function pageOf(query: { page?: number; limit?: number }, defaultLimit = 20): PageRequest {
  return { page: query.page ?? 1, limit: query.limit ?? defaultLimit };
}

export function offsetOf({ page, limit }: PageRequest): number {
  return (page - 1) * limit;
}

export function pagination({ page, limit }: PageRequest, total: number): Pagination {
  const totalPages = Math.ceil(total / limit);
  return { page, limit, total, total_pages: totalPages, has_next: page < totalPages, has_prev: page > 1 };
}

export function listEnvelope<T>(data: T[], page: PageRequest, total: number) {
  return { data, meta: { pagination: pagination(page, total) } };
}

/** `{id}` path parameter. Not format-checked: an id that is not a UUID is simply not found (404). */
export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
