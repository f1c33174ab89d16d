import { createHmac, createSecretKey, timingSafeEqual } from 'node:crypto';
import { type Static, type TSchema, Type } from 'typebox';
import type { CreatedKey } from '../db/keyset.js';
import { Nullable, type PageRequest, Pagination } from './envelopes.js';
import { invalidRequest } from './errors.js';

/**
 * Cursor pagination (keyset): a cursor names the last row a page ended on, so the next page is an
 * index range scan that costs the same at row 20 and at row 1,000,000, and rows inserted meanwhile
 * never shift a walk (no duplicates, no misses). The cursor is opaque and tamper-evident: base64url
 * JSON of `{ p: page number, k: position }`, then an HMAC-SHA256 that also covers the store, the list
 * and its filters — so a cursor changed by hand, replayed on another store or with other filters is
 * refused (400) instead of silently paging through something else.
 */

/** What a cursor is bound to: its HMAC covers all of it. */
export interface CursorScope {
  storeId: string;
  /** The list's name (`orders`, `products`, `customers`): a cursor of one list is refused by another. */
  list: string;
  /** The list's filters and sort, as the route received them (undefined values are dropped). */
  filters: Record<string, unknown>;
}

/** Where a walk resumes: the page it is on and the last row's sort key. */
export interface CursorPosition<K> {
  page: number;
  key: K;
}

export interface CursorCodec {
  seal<K>(scope: CursorScope, position: CursorPosition<K>): string;
  /** The position a cursor names, or 400 `invalid_request` naming `cursor`. */
  open<K>(raw: string, scope: CursorScope, isKey: (key: unknown) => key is K): CursorPosition<K>;
}

const KEY_LABEL = 'emporium list cursor v1';

/** A key of its own derived from APP_SECRET, so a cursor's MAC is never a MAC of anything else. */
export function createCursorCodec(appSecret: string): CursorCodec {
  // A KeyObject made once: an HMAC keyed by a Buffer imports the key again each time (~40 µs, about
  // ten times the MAC itself), and every page of a list seals a cursor.
  const key = createSecretKey(createHmac('sha256', appSecret).update(KEY_LABEL).digest());
  const macOf = (payload: string, scope: CursorScope) =>
    createHmac('sha256', key)
      .update(JSON.stringify([scope.storeId, scope.list, canonical(scope.filters), payload]))
      .digest();
  const refuse = () =>
    invalidRequest('invalid cursor', [
      {
        field: 'cursor',
        message: 'not a cursor of this list: altered, or issued for another store or other filters',
      },
    ]);

  return {
    seal(scope, position) {
      const payload = Buffer.from(JSON.stringify({ p: position.page, k: position.key })).toString(
        'base64url',
      );
      return `${payload}.${macOf(payload, scope).toString('base64url')}`;
    },
    open(raw, scope, isKey) {
      const [payload, mac, extra] = raw.split('.');
      if (!payload || !mac || extra !== undefined) throw refuse();
      const expected = macOf(payload, scope);
      const given = Buffer.from(mac, 'base64url');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw refuse();
      let decoded: unknown;
      try {
        decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      } catch {
        throw refuse();
      }
      const { p, k } = (decoded ?? {}) as { p?: unknown; k?: unknown };
      if (typeof p !== 'number' || !Number.isSafeInteger(p) || p < 1 || !isKey(k)) throw refuse();
      return { page: p, key: k };
    },
  };
}

/** Filters as one stable string: keys sorted, undefined and empty values dropped, dates as ISO. */
function canonical(filters: Record<string, unknown>): string {
  const entries = Object.entries(filters)
    .filter(([, value]) => value !== undefined && value !== '')
    .map(([name, value]) => [name, value instanceof Date ? value.toISOString() : value] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify(entries);
}

/** The `cursor` query parameter of a list that supports it (next to page/limit). */
export const cursorQuery = {
  cursor: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 1000,
      description:
        "`meta.pagination.next_cursor` of the previous page: continue after its last row (keyset pagination, as fast at the millionth row as at the first; rows created meanwhile neither repeat nor skip rows). Bound to the store and to this list's filters: send the same filters, or it is 400. Not combinable with `page` > 1; `limit` may change between pages.",
    }),
  ),
};

export const CursorPagination = Type.Object({
  ...Pagination.properties,
  next_cursor: Nullable(
    Type.String({ description: 'Pass as `cursor` for the page after this one; null on the last page' }),
  ),
});

export const CursorListEnvelope = <T extends TSchema>(item: T) =>
  Type.Object({ data: Type.Array(item), meta: Type.Object({ pagination: CursorPagination }) });

/** The page a request asks for: a page number, or a cursor's position (`after`). */
export interface ListRequest<K> extends PageRequest {
  after?: K;
}

export interface CursorList<K> extends ListRequest<K> {
  /** The list envelope: counts as with page numbers, `has_next`/`next_cursor` from `more`. */
  envelope<T>(page: { data: T[]; total: number; more: boolean; lastKey: K | undefined }): {
    data: T[];
    meta: { pagination: Static<typeof CursorPagination> };
  };
}

/**
 * Reads `page`/`limit`/`cursor` of a cursor-paginated list; every other query parameter is a filter
 * the cursor is bound to. With a cursor, `page` must be absent or 1, and the response's `page` is the
 * walk's page number (carried in the cursor), so has_prev and total_pages read as with page numbers.
 */
export function cursorList<K>(
  codec: CursorCodec,
  list: string,
  storeId: string,
  query: { page?: number; limit?: number; cursor?: string } & Record<string, unknown>,
  isKey: (key: unknown) => key is K,
): CursorList<K> {
  const { page: pageNumber, limit = 20, cursor, ...filters } = query;
  const scope: CursorScope = { storeId, list, filters };
  let request: ListRequest<K> = { page: pageNumber ?? 1, limit };
  if (cursor !== undefined) {
    if (pageNumber !== undefined && pageNumber !== 1)
      throw invalidRequest('page and cursor cannot be combined', [
        { field: 'page', message: 'omit page when a cursor is given' },
      ]);
    const position = codec.open(cursor, scope, isKey);
    request = { page: position.page, limit, after: position.key };
  }
  return {
    ...request,
    envelope(result) {
      const nextCursor =
        result.more && result.lastKey !== undefined
          ? codec.seal(scope, { page: request.page + 1, key: result.lastKey })
          : null;
      return {
        data: result.data,
        meta: {
          pagination: {
            page: request.page,
            limit,
            total: result.total,
            total_pages: Math.ceil(result.total / limit),
            has_next: nextCursor !== null,
            has_prev: request.page > 1,
            next_cursor: nextCursor,
          },
        },
      };
    },
  };
}

/** The sort key of lists ordered by (created_at, id). */
export const isCreatedKey = (key: unknown): key is CreatedKey =>
  typeof key === 'object' &&
  key !== null &&
  typeof (key as CreatedKey).t === 'string' &&
  /^-?\d{1,20}$/.test((key as CreatedKey).t) &&
  typeof (key as CreatedKey).i === 'string' &&
  /^[0-9a-f-]{36}$/.test((key as CreatedKey).i);

/** The sort key of the orders list: the order number (unique per store, newest highest). */
export const isOrderNumberKey = (key: unknown): key is number =>
  typeof key === 'number' && Number.isSafeInteger(key) && key > 0;
