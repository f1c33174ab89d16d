import { type IncomingMessage, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { newId } from '../ids.js';
import { AppError, errorBody } from './errors.js';

/** The id given to each request Fastify received, so that a later 408 on its connection carries it. */
const requestIds = new WeakMap<IncomingMessage, string>();

/** Fastify's genReqId, remembering the id for the connection's client errors. */
export function rememberRequestId(request: IncomingMessage, id: string): string {
  requestIds.set(request, id);
  return id;
}

/**
 * What node's HTTP parser and timers report on a connection, before (or instead of) a request
 * Fastify could answer: the error body clients get for each.
 */
export function clientErrorToAppError(error: NodeJS.ErrnoException): AppError {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new AppError(408, 'request_timeout', 'The request was not received in time');
    case 'HPE_HEADER_OVERFLOW':
      return new AppError(
        431,
        'request_header_fields_too_large',
        'The request line and headers exceed the size limit',
      );
    case 'HPE_INVALID_METHOD':
      return new AppError(400, 'invalid_request', 'The request method is not valid');
    default:
      return new AppError(400, 'invalid_request', 'The request is not valid HTTP');
  }
}

/**
 * Fastify's clientErrorHandler: answers an HTTP-level error (a request line or headers that do not
 * parse or are too large, a request not received within the time-outs) in the contract's error body,
 * with a request id, then closes the connection. The request never reached a route, so this writes
 * to the socket itself. Nothing is written when a response has already begun.
 */
export function handleClientError(this: FastifyInstance, error: NodeJS.ErrnoException, socket: Socket) {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const appError = clientErrorToAppError(error);
  // The response in progress on this connection, when the request got that far (a body time-out).
  const response = (socket as Socket & { _httpMessage?: { headersSent?: boolean; req?: IncomingMessage } })
    ._httpMessage;
  const requestId = (response?.req && requestIds.get(response.req)) || newId();
  this.log.debug({ reqId: requestId, code: error.code, status: appError.statusCode }, 'client error');
  if (socket.writable && !response?.headersSent) {
    const body = JSON.stringify(errorBody(appError));
    socket.write(
      `HTTP/1.1 ${appError.statusCode} ${STATUS_CODES[appError.statusCode]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${requestId}\r\n` +
        'X-Content-Type-Options: nosniff\r\n' +
        'Cache-Control: no-store\r\n' +
        'Connection: close\r\n\r\n' +
        body,
    );
  }
  socket.destroy(error);
}
