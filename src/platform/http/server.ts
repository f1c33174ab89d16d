import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { ErrorBody } from './envelopes.js';
import { installStandardErrorResponses } from './error-responses.js';
import { installErrorHandling, replyWithError, unavailable } from './errors.js';
import { requestIdFor } from './request-id.js';
import { installValidation } from './validation.js';

/** The contract's body limit; larger bodies are 413 payload_too_large. */
export const BODY_LIMIT = 1024 * 1024;

/**
 * A Fastify instance with the HTTP conventions every endpoint shares (request ids, JSON-only bodies,
 * strict validation, the one error body). app.ts builds on it, and so do the platform's tests, so they
 * exercise exactly the production wiring.
 */
export function createHttpServer(logger: FastifyBaseLogger, options: { trustProxy?: boolean } = {}) {
  const server = Fastify({
    loggerInstance: logger,
    trustProxy: options.trustProxy ?? false,
    genReqId: requestIdFor,
    bodyLimit: BODY_LIMIT,
    // While closing, requests still arriving are answered by our hook below with the contract's 503;
    // Fastify's own fast path would send its body, without a request id.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    ajv: { customOptions: { removeAdditional: false } },
    // Errors met while routing (an undecodable URL, an over-long path parameter) skip the hooks and
    // the error handler; without this they would be Fastify's own body, without a request id.
    frameworkErrors: (error, request, reply) => {
      reply.header('x-request-id', request.id);
      return replyWithError(error, request, reply);
    },
  }).withTypeProvider<TypeBoxTypeProvider>();
  installPlatform(server);
  return server;
}

function installPlatform(server: FastifyInstance): void {
  let closing = false;
  server.addHook('preClose', async () => {
    closing = true;
  });
  server.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    if (closing) throw unavailable();
  });
  // Only JSON bodies are accepted; anything else is 415 before it is read.
  server.removeContentTypeParser('text/plain');
  installValidation(server);
  installErrorHandling(server);
  server.addSchema(ErrorBody);
  installStandardErrorResponses(server);
}
