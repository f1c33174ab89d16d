import type { Logger } from 'pino';
import type { Config } from './config.js';
import { type DatabaseHandle, openDatabase } from './platform/db/database.js';
import { type EmbeddedCluster, openEmbeddedCluster } from './platform/db/embedded.js';
import { migrateToLatest } from './platform/db/migrate.js';
import {
  MemoryRateLimitStore,
  openRedisRateLimitStore,
  type RateLimitStore,
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
      const { applied } = await migrateToLatest(database.db);
      if (applied.length) logger.info({ applied }, 'migrations applied');
    }
  } catch (error) {
    closing = true;
    await database.close();
    await embedded?.release();
    throw error;
  }

  let rateLimitStore: RateLimitStore = new MemoryRateLimitStore();
  if (config.redisUrl) {
    rateLimitStore = await openRedisRateLimitStore(config.redisUrl, {
      onClientError: (error) => logger.warn({ err: error }, 'redis error'),
      onUnavailable: (error) =>
        logger.warn(
          { err: error },
          'redis unavailable: rate limits are counted in this process until it answers again',
        ),
      onRecovered: () => logger.info('redis answers again: rate limits are counted in redis'),
    });
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
