/**
 * A thin typed client over Emporium's JSON API. Same-origin fetches carry the `emporium_admin`
 * cookie (HttpOnly, SameSite=Strict) and the browser's Origin header, which is what the server's
 * CSRF check asks of cookie-authenticated writes. Error bodies `{ error: { code, message, details } }`
 * become an ApiError with a readable message and per-field messages.
 */

export interface FieldError {
  field: string;
  message: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: FieldError[] = [],
    readonly requestId?: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** The message of one field (`price`, `variants/0/sku`…), if the API named it. */
  fieldError(field: string): string | undefined {
    const wanted = normaliseField(field);
    return this.details.find((d) => normaliseField(d.field) === wanted)?.message;
  }

  /** The message of a field or of anything inside it (`countries` for `countries/2`). */
  fieldErrorWithin(field: string): string | undefined {
    const wanted = normaliseField(field);
    return this.details.find((d) => {
      const name = normaliseField(d.field);
      return name === wanted || name.startsWith(`${wanted}.`);
    })?.message;
  }

  /** The message followed by every field's message, for a banner. */
  get readable(): string {
    const fields = this.details.map((d) => `${d.field ? `${prettyField(d.field)}: ` : ''}${d.message}`);
    const unique = fields.filter((f) => !this.message.includes(f));
    return unique.length ? `${this.message} (${unique.join('; ')})` : this.message;
  }
}

/** `/body/price`, `body.price`, `price` all name the same field. */
function normaliseField(field: string): string {
  return field
    .replace(/^\/?body[./]?/, '')
    .replace(/^\//, '')
    .replace(/\//g, '.');
}

function prettyField(field: string): string {
  return normaliseField(field) || 'request';
}

export interface Pagination {
  page: number;
  limit: number;
  total: number;
  total_pages: number;
  has_next: boolean;
  has_prev: boolean;
}

export interface ListResult<T> {
  data: T[];
  meta: { pagination: Pagination };
}

type Query = Record<string, string | number | boolean | undefined | null>;

export function withQuery(path: string, query?: Query): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === '') continue;
    params.set(name, String(value));
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

/** Called when any request answers 401: the session ended, the app goes back to sign-in. */
let onUnauthorized: (() => void) | undefined;
export function setUnauthorizedHandler(handler: (() => void) | undefined) {
  onUnauthorized = handler;
}

type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
interface RequestOptions {
  signal?: AbortSignal;
  quietUnauthorized?: boolean;
  /** The ETag the change is based on: the server answers 412 if the resource has another version now. */
  ifMatch?: string;
  /** The browser's cache for this request: 'no-cache' revalidates a public answer kept by the cache. */
  cache?: RequestCache;
}

export async function request<T>(method: Method, path: string, body?: unknown, options: RequestOptions = {}) {
  return (await versionedRequest<T>(method, path, body, options)).body;
}

/** An answer with the version (ETag) of the resource it carries. */
export interface Versioned<T> {
  body: T;
  etag: string | undefined;
}

export async function versionedRequest<T>(
  method: Method,
  path: string,
  body?: unknown,
  options: RequestOptions = {},
): Promise<Versioned<T>> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.ifMatch) headers['if-match'] = options.ifMatch;
  const init: RequestInit = { method, credentials: 'same-origin', headers, signal: options.signal };
  if (options.cache) init.cache = options.cache;
  // The API accepts only JSON bodies and refuses an empty body declared as JSON: no body, no type.
  if (body !== undefined) {
    headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response: Response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new ApiError(0, 'network_error', 'The server could not be reached. Check your connection.');
  }
  const etag = response.headers.get('etag') ?? undefined;
  if (response.status === 204) return { body: undefined as T, etag };
  const text = await response.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (!response.ok) {
    const error = (json as { error?: { code?: string; message?: string; details?: FieldError[] } })?.error;
    const apiError = new ApiError(
      response.status,
      error?.code ?? `http_${response.status}`,
      error?.message ?? `The server answered ${response.status} ${response.statusText}`.trim(),
      error?.details ?? [],
      response.headers.get('x-request-id') ?? undefined,
    );
    if (response.status === 401 && !options.quietUnauthorized) onUnauthorized?.();
    throw apiError;
  }
  return { body: json as T, etag };
}

export const api = {
  get: <T>(path: string, query?: Query, signal?: AbortSignal) =>
    request<T>('GET', withQuery(path, query), undefined, { signal }),
  post: <T>(path: string, body?: unknown) => request<T>('POST', path, body),
  patch: <T>(path: string, body: unknown) => request<T>('PATCH', path, body),
  put: <T>(path: string, body: unknown) => request<T>('PUT', path, body),
  delete: (path: string) => request<void>('DELETE', path),
};

/** A readable message for anything thrown. */
export function messageOf(error: unknown): string {
  if (error instanceof ApiError) return error.readable;
  if (error instanceof Error) return error.message;
  return String(error);
}
