import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from '../db/database.js';
import { fieldMessages, summary, type ValidationIssue } from './validation-messages.js';

export interface ErrorDetail {
  field: string;
  message: string;
}

/**
 * Every code an error body can carry (contract §2): typed so that a new one is added here, where
 * the OpenAPI document's `error.code` enum reads them.
 */
export const ERROR_CODES = [
  'invalid_request',
  'unauthorized',
  'payment_declined',
  'forbidden',
  'not_found',
  'request_timeout',
  'conflict',
  'insufficient_stock',
  'precondition_failed',
  'payload_too_large',
  'unsupported_media_type',
  'rate_limited',
  'request_header_fields_too_large',
  'internal_error',
  'unavailable',
  'insufficient_storage',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** The one error type of the application: a stable code, its HTTP status and a safe message. */
export class AppError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

export const invalidRequest = (message: string, details?: ErrorDetail[]) =>
  new AppError(400, 'invalid_request', message, details);
export const unauthorized = (message = 'Missing or invalid credentials') =>
  new AppError(401, 'unauthorized', message);
export const paymentDeclined = (message = 'The payment was declined') =>
  new AppError(402, 'payment_declined', message);
export const forbidden = (message: string) => new AppError(403, 'forbidden', message);
export const notFound = (resource: string) => new AppError(404, 'not_found', `${resource} not found`);
export const conflict = (message: string) => new AppError(409, 'conflict', message);
export const insufficientStock = (message: string) => new AppError(409, 'insufficient_stock', message);
/** An `If-Match` naming a version the resource no longer has: someone else changed it meanwhile. */
export const preconditionFailed = (
  message = 'The resource was changed since you read it (If-Match does not match its ETag); read it again and reapply your change',
) => new AppError(412, 'precondition_failed', message);
export const rateLimited = (retryAfterSeconds: number) =>
  new AppError(429, 'rate_limited', 'Rate limit exceeded; retry later', undefined, {
    'retry-after': String(retryAfterSeconds),
  });
/** The server cannot store what the request needs (media storage full or not writable): an operator's matter. */
export const insufficientStorage = (message: string) => new AppError(507, 'insufficient_storage', message);
export const unavailable = (
  message = 'The service is temporarily unavailable; retry shortly',
  retryAfterSeconds = 5,
) => new AppError(503, 'unavailable', message, undefined, { 'retry-after': String(retryAfterSeconds) });

/** Maps a PostgreSQL unique-violation constraint name to the conflict message clients see. */
const CONSTRAINT_CONFLICTS: Record<string, string> = {
  stores_slug_key: 'a store with this slug already exists',
  admin_users_email_key: 'a user with this e-mail already exists',
  customers_store_email_key: 'a customer with this e-mail already exists',
};

export function registerConstraintConflict(constraint: string, message: string): void {
  CONSTRAINT_CONFLICTS[constraint] = message;
}

/**
 * The most details a validation error lists. Validators report every invalid field; a body with
 * thousands of wrong fields still gets a short answer (its first MAX_VALIDATION_DETAILS).
 */
export const MAX_VALIDATION_DETAILS = 20;

/** Translates any thrown error into the contract's error body; the only place that does so. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const e = error as FastifyError & { constraint?: string; validationContext?: string };
  if (e?.validation) {
    const details = fieldMessages(
      e.validationContext,
      e.validation as ValidationIssue[],
      MAX_VALIDATION_DETAILS,
    );
    return invalidRequest(summary(details), details);
  }
  switch (e?.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError(413, 'payload_too_large', 'The request body exceeds the 1 MiB limit');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return e.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
        ? new AppError(415, 'unsupported_media_type', 'The request body must be application/json')
        : invalidRequest('Content-Length does not match the body');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return invalidRequest('The JSON body is empty');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return invalidRequest('The body is not valid JSON');
    case 'FST_ERR_BAD_URL':
      return invalidRequest('The URL is not valid');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      // A path parameter longer than any id can be names nothing that exists.
      return new AppError(404, 'not_found', 'not found');
    case '23505': {
      const message = e.constraint ? CONSTRAINT_CONFLICTS[e.constraint] : undefined;
      return conflict(message ?? 'the resource already exists');
    }
    case '23503':
      return invalidRequest('a referenced resource does not exist');
    case '40P01':
    case '40001':
      // A deadlock or serialization failure still there after inTransaction's retries: contention,
      // not a bug, and nothing was written; the same request may simply be sent again.
      return unavailable('The database was too busy to complete the request; retry shortly', 1);
    case '22P02':
    case '22003':
    // A NUL byte or an invalid sequence in a text value: the client's input, never stored.
    case '22021':
    case '23514':
      return invalidRequest('a value is out of range or malformed');
  }
  // The client's connection closed while its body was being read (it went away, or the request
  // time-out closed it): node's own error, not the database's ECONNRESET. Nobody reads this answer.
  if (e?.code === 'ECONNRESET' && e.message === 'aborted' && e.statusCode === 400) {
    return invalidRequest('The request was aborted before its body arrived');
  }
  if (isDatabaseUnavailable(error)) return unavailable();
  // JSON syntax errors from the parser carry a 400 status and no code on some paths.
  if (e instanceof SyntaxError || e?.statusCode === 400) return invalidRequest('The body is not valid JSON');
  if (typeof e?.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    return new AppError(e.statusCode, 'invalid_request', e.message);
  }
  return new AppError(500, 'internal_error', 'An internal error occurred; it has been logged');
}

export function errorBody(error: AppError) {
  return {
    error: {
      code: error.code,
      message: error.message,
      ...(error.details?.length ? { details: error.details } : {}),
    },
  };
}

/** Sends the contract's error body for any error; the error handler and routing errors both use it. */
export function replyWithError(error: unknown, request: FastifyRequest, reply: FastifyReply) {
  const appError = toAppError(error);
  if (appError.statusCode >= 500) {
    request.log.error({ err: error, code: appError.code }, 'request failed');
  }
  if (appError.headers) reply.headers(appError.headers);
  // Routing errors and errors of the first hooks come before the security headers' hook has run:
  // an error body is never sniffed as a page nor kept by a cache, whichever path it took.
  reply.header('x-content-type-options', 'nosniff');
  if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
  return reply.code(appError.statusCode).type('application/json').send(errorBody(appError));
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => replyWithError(error, request, reply));
  app.setNotFoundHandler((request, reply) => {
    return reply
      .code(404)
      .send(
        errorBody(
          new AppError(404, 'not_found', `No route for ${request.method} ${request.url.split('?')[0]}`),
        ),
      );
  });
}
