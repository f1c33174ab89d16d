import createClient, { type Client, type FetchResponse, type MaybeOptionalInit } from 'openapi-fetch';
import type { HttpMethod, PathsWithMethod, RequiredKeysOf } from 'openapi-typescript-helpers';
import { EmporiumError } from './errors.js';
import { fetchRetrying429, type RetryOptions } from './retry.js';
import { IDEMPOTENT_OPERATIONS, type paths } from './schema.js';

export type Paths = paths;
type Media = `${string}/${string}`;

export interface EmporiumOptions {
  /** The server's address, e.g. `https://shop.example.com` (no `/api/v1`: paths carry it). */
  baseUrl: string;
  /** A merchant API key (`sk_…`), sent as `X-API-Key` to every request. */
  apiKey?: string;
  /** A customer session token (from `/auth/verify`), sent as `Authorization: Bearer`. */
  sessionToken?: string;
  /** Retry 429 after `Retry-After` (default on, 3 times); `false` to get the 429 as an error at once. */
  retry?: RetryOptions | false;
  /** Makes the Idempotency-Key sent on creates when the call gives none (default: a random UUID). */
  idempotencyKey?: () => string;
  /** Another fetch (default: the global one). */
  fetch?: (request: Request) => Promise<Response>;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
}

type InitParam<Init> =
  RequiredKeysOf<Init> extends never
    ? [(Init & { [key: string]: unknown })?]
    : [Init & { [key: string]: unknown }];

/** The 2xx body of an operation (undefined for 204). */
export type Ok<R> = R extends { data: infer D }
  ? [NonNullable<D>] extends [never]
    ? undefined
    : NonNullable<D>
  : never;

/** A method that resolves to the 2xx body and throws EmporiumError on anything else. */
export type DataMethod<M extends HttpMethod> = <
  P extends PathsWithMethod<Paths, M>,
  Init extends MaybeOptionalInit<Paths[P], M>,
>(
  url: P,
  ...init: InitParam<Init>
) => Promise<Ok<ResponseOf<Paths[P][M], Init>>>;

type ResponseOf<Operation, Init> =
  Operation extends Record<string | number, unknown> ? FetchResponse<Operation, Init, Media> : never;

type GetPath = PathsWithMethod<Paths, 'get'>;
type OkOfGet<P extends GetPath> = Ok<ResponseOf<Paths[P]['get'], object>>;

/** The GET paths answering the list envelope `{ data: [...], meta: { pagination } }`. */
export type ListPath = {
  [P in GetPath]: OkOfGet<P> extends { data: unknown[]; meta: { pagination: unknown } } ? P : never;
}[GetPath];
export type ListItem<P extends ListPath> = OkOfGet<P> extends { data: (infer I)[] } ? I : never;
export type ListPage<P extends ListPath> = OkOfGet<P>;

export interface EmporiumClient {
  get: DataMethod<'get'>;
  post: DataMethod<'post'>;
  put: DataMethod<'put'>;
  patch: DataMethod<'patch'>;
  delete: DataMethod<'delete'>;
  /**
   * Every item of a list, page after page, to the end: by `next_cursor` where the list has one
   * (orders, products, customers: no row repeated or missed while rows are added), else by page number.
   */
  paginate<P extends ListPath>(
    url: P,
    ...init: InitParam<MaybeOptionalInit<Paths[P], 'get'>>
  ): AsyncGenerator<ListItem<P>>;
  /** The same walk a page at a time (its items and `meta.pagination`). */
  pages<P extends ListPath>(
    url: P,
    ...init: InitParam<MaybeOptionalInit<Paths[P], 'get'>>
  ): AsyncGenerator<ListPage<P>>;
  /** Sign a customer in (or out, with undefined) for the calls that follow. */
  setSessionToken(token: string | undefined): void;
  /** The underlying openapi-fetch client: `{ data, error, response }`, never throws for a status. */
  raw: Client<Paths, Media>;
}

/** A typed Emporium client. Works in browsers and Node 20+ (fetch and Web Crypto only). */
export function createEmporiumClient(options: EmporiumOptions): EmporiumClient {
  const baseFetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const raw = createClient<Paths, Media>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: options.headers,
    fetch: options.retry === false ? baseFetch : fetchRetrying429(baseFetch, options.retry),
  });
  let sessionToken = options.sessionToken;
  const idempotent = new Set(IDEMPOTENT_OPERATIONS);
  const newKey = options.idempotencyKey ?? (() => globalThis.crypto.randomUUID());
  raw.use({
    onRequest({ request, schemaPath }) {
      if (options.apiKey && !request.headers.has('x-api-key'))
        request.headers.set('x-api-key', options.apiKey);
      if (sessionToken && !request.headers.has('authorization'))
        request.headers.set('authorization', `Bearer ${sessionToken}`);
      // Set before the retrying fetch: every retry of this call carries the same key.
      if (idempotent.has(`${request.method} ${schemaPath}`) && !request.headers.has('idempotency-key'))
        request.headers.set('idempotency-key', newKey());
      return request;
    },
  });

  const call =
    (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE') =>
    async (url: string, init?: Record<string, unknown>) => {
      const result = (await (
        raw[method] as (u: string, i?: unknown) => Promise<FetchResponse<never, never, Media>>
      )(url, init)) as { data?: unknown; error?: unknown; response: Response };
      if (!result.response.ok) throw await EmporiumError.fromResponse(result.response, result.error);
      return result.data;
    };
  const get = call('GET');

  async function* pages(url: string, init?: Record<string, unknown>) {
    const params = (init?.params ?? {}) as { query?: Record<string, unknown> };
    let query: Record<string, unknown> = { ...params.query };
    for (;;) {
      const page = (await get(url, { ...init, params: { ...params, query } })) as {
        data: unknown[];
        meta: { pagination: { page: number; has_next: boolean; next_cursor?: string | null } };
      };
      yield page;
      const pagination = page.meta.pagination;
      if (pagination.next_cursor !== undefined) {
        if (pagination.next_cursor === null) return;
        const { page: _page, ...rest } = query;
        query = { ...rest, cursor: pagination.next_cursor };
      } else {
        if (!pagination.has_next || page.data.length === 0) return;
        query = { ...query, page: pagination.page + 1 };
      }
    }
  }

  return {
    get: get as DataMethod<'get'>,
    post: call('POST') as DataMethod<'post'>,
    put: call('PUT') as DataMethod<'put'>,
    patch: call('PATCH') as DataMethod<'patch'>,
    delete: call('DELETE') as DataMethod<'delete'>,
    pages: pages as EmporiumClient['pages'],
    paginate: async function* (url: string, init?: Record<string, unknown>) {
      for await (const page of pages(url, init)) yield* page.data;
    } as EmporiumClient['paginate'],
    setSessionToken(token) {
      sessionToken = token;
    },
    raw,
  };
}
