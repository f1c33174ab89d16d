import pino, { type Logger } from 'pino';
import { inject } from 'vitest';
import { type App, buildApp } from '../../src/app.js';
import { type Config, loadConfig } from '../../src/config.js';
import type { RefundGateway } from '../../src/modules/orders/index.js';
import { type DatabaseHandle, openDatabase } from '../../src/platform/db/database.js';
import {
  MemoryRateLimitStore,
  openRedisRateLimitStore,
  type RateLimitStore,
} from '../../src/platform/http/rate-limit.js';
import { startBackgroundWorker } from '../../src/worker.js';
import { createTestDatabase, type TestDatabase } from './database.js';

export interface TestApp extends App {
  config: Config;
  database: DatabaseHandle;
  testDatabase: TestDatabase;
  close(): Promise<void>;
}

export interface TestAppOptions {
  config?: Partial<Config>;
  /** Share a database between several app instances (e.g. two servers on one Redis). */
  testDatabase?: TestDatabase;
  rateLimitStore?: RateLimitStore;
  /** Rate-limit counters in Redis, built as the runtime builds them: at TEST_REDIS_URL, or at this URL. */
  redis?: boolean | string;
  /** The app's logger (default: silent). */
  logger?: Logger;
  /** Refund gateways of providers, besides the app's own (AppDeps.refundGateways). */
  refundGateways?: RefundGateway[];
  /** Exchange catalogue changes with other apps on the same database, as `serve` does (AppDeps.pool). */
  changeFeed?: boolean;
}

/** Builds the real app over a fresh database of its own (or the one given). */
export async function buildTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const testDatabase = options.testDatabase ?? (await createTestDatabase());
  const config = loadConfig(
    {
      LOG_LEVEL: 'silent',
      DATABASE_URL: testDatabase.url,
      APP_SECRET: 'test-app-secret-0123456789abcdef0123',
    },
    options.config,
  );
  const database = openDatabase(testDatabase.url, { max: 5 });
  let rateLimitStore = options.rateLimitStore ?? new MemoryRateLimitStore();
  if (options.redis) {
    const redisUrl = typeof options.redis === 'string' ? options.redis : inject('redisUrl');
    if (!redisUrl) throw new Error('TEST_REDIS_URL is not set');
    rateLimitStore = await openRedisRateLimitStore(redisUrl);
  }
  const app = await buildApp({
    config,
    db: database.db,
    logger: options.logger ?? pino({ level: 'silent' }),
    rateLimitStore,
    refundGateways: options.refundGateways,
    pool: options.changeFeed ? database.pool : undefined,
  });
  return {
    ...app,
    config,
    database,
    testDatabase,
    async close() {
      await app.server.close();
      await rateLimitStore.close();
      await database.close();
      if (!options.testDatabase) await testDatabase.drop();
    },
  };
}

/** The background worker on a test app's database (webhook deliveries), as `serve` runs it. */
export function startTestWorker(app: TestApp) {
  return startBackgroundWorker({
    config: app.config,
    db: app.database.db,
    pool: app.database.pool,
    logger: pino({ level: 'silent' }),
    metrics: app.metrics,
  });
}
