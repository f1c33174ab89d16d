/** One `{ field, message }` of a validation error. */
export interface EmporiumErrorDetail {
  field: string;
  message: string;
}

/**
 * Every non-2xx answer of the API, with the error envelope's `code` (`invalid_request`, `not_found`,
 * `rate_limited`, …), `message` and `details`, and the HTTP status. `requestId` is the response's
 * `X-Request-Id`, the line to quote when asking the store's operator what went wrong.
 */
export class EmporiumError extends Error {
  override readonly name = 'EmporiumError';

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: EmporiumErrorDetail[] = [],
    readonly requestId: string | undefined = undefined,
    /** `Retry-After` in seconds, when the answer gave one (429, 503). */
    readonly retryAfterSeconds: number | undefined = undefined,
  ) {
    super(message);
  }

  /** The error of a response: its envelope when it has one, else the status alone. */
  static async fromResponse(response: Response, body?: unknown): Promise<EmporiumError> {
    let envelope = body;
    if (envelope === undefined) {
      try {
        envelope = await response.clone().json();
      } catch {
        envelope = undefined;
      }
    }
    const error = (
      envelope as { error?: { code?: unknown; message?: unknown; details?: unknown } } | undefined
    )?.error;
    const code = typeof error?.code === 'string' ? error.code : `http_${response.status}`;
    const message = typeof error?.message === 'string' ? error.message : `HTTP ${response.status}`;
    const details = Array.isArray(error?.details) ? (error.details as EmporiumErrorDetail[]) : [];
    return new EmporiumError(
      response.status,
      code,
      message,
      details,
      response.headers.get('x-request-id') ?? undefined,
      retryAfterSeconds(response.headers.get('retry-after')),
    );
  }
}

/** `Retry-After` as seconds: a number of seconds, or an HTTP date. */
export function retryAfterSeconds(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}
