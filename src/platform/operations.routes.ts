import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { sql } from 'kysely';
import { Type } from 'typebox';
import type { Db } from './db/database.js';
import { unavailable } from './http/errors.js';
import type { Metrics } from './metrics.js';

/** /healthz, /readyz, /metrics and /openapi.json. */
export const operationsRoutes: FastifyPluginAsyncTypebox<{ db: Db; metrics: Metrics }> = async (
  app,
  { db, metrics },
) => {
  const Status = Type.Object({ status: Type.String() });

  app.get(
    '/healthz',
    {
      schema: {
        tags: ['Operations'],
        operationId: 'getHealth',
        security: [],
        summary: 'The process is alive',
        response: { 200: Status },
      },
    },
    async () => ({ status: 'ok' }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        tags: ['Operations'],
        operationId: 'getReadiness',
        security: [],
        summary: 'The database is reachable',
        response: { 200: Status, 503: { $ref: 'ErrorBody#' } },
      },
    },
    async () => {
      try {
        await sql`SELECT 1`.execute(db);
      } catch {
        throw unavailable();
      }
      return { status: 'ready' };
    },
  );

  app.get(
    '/metrics',
    { schema: { operationId: 'getMetrics', security: [], hide: true } },
    async (_request, reply) => {
      reply.type(metrics.registry.contentType);
      return metrics.registry.metrics();
    },
  );

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
};
