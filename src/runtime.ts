import type { Logger } from 'pino';
import type { Config } from './config.js';
import { type DatabaseHandle, openDatabase } from './platform/db/database.js';
import { type EmbeddedCluster, openEmbeddedCluster } from './platform/db/embedded.js';
import { migrateToLatest } from './platform/db/migrate.js';
import {
  MemoryRateLimitStore,
  type RateLimitStore,
  RedisRateLimitStore,
} from './platform/http/rate-limit.js';
import { appSecretOf, loadOrCreateLocalSecrets } from './platform/secrets-file.js';

/** The infrastructure a process needs: the database (embedded or external) and shared counters. */
export interface Runtime {
  config: Config;
  database: DatabaseHandle;
  embedded: EmbeddedCluster | undefined;
  rateLimitStore: RateLimitStore;
  /** APP_SECRET came from DATA_DIR, not the environment (fine on one machine, not across machines). */
  appSecretGenerated: boolean;
  close(): Promise<void>;
}

export async function openRuntime(
  config: Config,
  logger: Logger,
  options: { migrate: boolean; poolSize?: number },
): Promise<Runtime> {
  let embedded: EmbeddedCluster | undefined;
  let url = config.databaseUrl;
  if (!url) {
    const secrets = loadOrCreateLocalSecrets(config.dataDir);
    if (!config.appSecret) config.appSecret = secrets.appSecret;
    embedded = await openEmbeddedCluster({
      dataDir: config.dataDir,
      password: secrets.postgresPassword,
      log: (line) => logger.info(line),
    });
    url = embedded.url;
  }
  const appSecretGenerated = !config.appSecret;
  appSecretOf(config);
  let closing = false;
  const database = openDatabase(url, {
    max: options.poolSize,
    // Closing, the pool's last connections may still be ending when the cluster stops: not a loss.
    onError: (error) => {
      if (!closing) logger.warn({ err: error }, 'database connection lost; it will be re-established');
    },
  });
  try {
    if (options.migrate) {
      const { applied, validated } = await migrateToLatest(database.db);
      if (applied.length) logger.info({ applied }, 'migrations applied');
      if (validated.length) logger.info({ validated }, 'constraints validated');
    }
  } catch (error) {
    closing = true;
    await database.close();
    await embedded?.release();
    throw error;
  }

  let rateLimitStore: RateLimitStore = new MemoryRateLimitStore();
  if (config.redisUrl) {
    // Loaded only when configured: a single-process install never holds the Redis client.
    const { Redis } = await import('ioredis');
    const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 1, commandTimeout: 1000 });
    redis.on('error', (error) => logger.warn({ err: error }, 'redis error'));
    rateLimitStore = new RedisRateLimitStore(redis, (error) =>
      logger.warn({ err: error }, 'rate limit not counted: redis unavailable'),
    );
  }

  return {
    config,
    database,
    embedded,
    rateLimitStore,
    appSecretGenerated: appSecretGenerated && !embedded,
    async close() {
      closing = true;
      await rateLimitStore.close();
      await database.close();
      await embedded?.release();
    },
  };
}
