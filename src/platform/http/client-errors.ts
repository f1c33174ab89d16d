import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { newId } from '../ids.js';
import { AppError, errorBody } from './errors.js';

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
  const requestId = newId();
  this.log.debug({ reqId: requestId, code: error.code, status: appError.statusCode }, 'client error');
  const started = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
  if (socket.writable && !started) {
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
