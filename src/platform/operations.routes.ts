import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { sql } from 'kysely';
import { Type } from 'typebox';
import type { Db } from './db/database.js';
import { unavailable } from './http/errors.js';
import type { Metrics } from './metrics.js';

/** How long /readyz waits for the database's answer before it answers 503. */
const READY_TIMEOUT_MS = 1500;

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
      // Answered within READY_TIMEOUT_MS either way: a probe that waits on a silent database would
      // itself hang, and the load balancer's check with it.
      let timer: NodeJS.Timeout | undefined;
      const silent = new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), READY_TIMEOUT_MS);
      });
      const answered = sql`SELECT 1`.execute(db).then(
        () => true,
        () => false,
      );
      const ready = await Promise.race([answered, silent]);
      clearTimeout(timer);
      if (!ready) throw unavailable();
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
