import type { Logger } from 'pino';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { openDatabase } from './platform/db/database.js';
import { MemoryRateLimitStore } from './platform/http/rate-limit.js';

/**
 * The OpenAPI document, built from the route schemas alone (the `openapi` command and the lint test):
 * the app is composed over a pool that never connects, so no database is needed.
 */
export async function openApiDocument(config: Config, logger: Logger): Promise<Record<string, unknown>> {
  const database = openDatabase('postgres://openapi@127.0.0.1:1/openapi');
  try {
    const app = await buildApp({
      config,
      db: database.db,
      logger,
      rateLimitStore: new MemoryRateLimitStore(),
      watchCustomDomains: false,
    });
    try {
      return app.server.swagger() as unknown as Record<string, unknown>;
    } finally {
      await app.server.close();
    }
  } finally {
    await database.close();
  }
}
