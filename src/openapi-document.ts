import type { Logger } from 'pino';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { openDatabase } from './platform/db/database.js';
import { MemoryRateLimitStore } from './platform/http/rate-limit.js';

/**
 * The OpenAPI 3.1 document (`emporium openapi`, /openapi.json, the dashboard's generated types),
 * built from the route schemas alone: the pool is never connected.
 */
export async function openApiDocument(config: Config, logger: Logger) {
  const database = openDatabase('postgres://openapi@127.0.0.1:1/openapi');
  try {
    const app = await buildApp({
      config,
      db: database.db,
      logger,
      rateLimitStore: new MemoryRateLimitStore(),
    });
    try {
      return app.server.swagger();
    } finally {
      await app.server.close();
    }
  } finally {
    await database.close();
  }
}
