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

/** A query or a connection wait this long without an answer makes the pool check the server answers. */
const STALL_CHECK_MS = 2000;

export interface RuntimeOptions {
  migrate: boolean;
  poolSize?: number;
  /**
   * The pool serves requests (`serve`) or background jobs (`worker`): each statement is limited to
   * DATABASE_STATEMENT_TIMEOUT_MS, and a server that stops answering is detected within seconds
   * (requests then fail with 503 until it answers again). Without it (CLI commands: seed, migrate)
   * statements run as long as they need.
   */
  requestWork?: boolean;
  /**
   * Long-running processes (`serve`, `worker`) on the embedded cluster: the cluster is watched and
   * restarted when it dies (see EmbeddedCluster.supervise); this is called with one line when it
   * cannot be, and should end the process.
   */
  onFatal?: (message: string) => void;
  /** See EmbeddedOptions.onSpawned: the embedded cluster's postmaster was just spawned. */
  onClusterSpawned?: () => void;
}

export async function openRuntime(config: Config, logger: Logger, options: RuntimeOptions): Promise<Runtime> {
  let embedded: EmbeddedCluster | undefined;
  let url = config.databaseUrl;
  if (!url) {
    const secrets = loadOrCreateLocalSecrets(config.dataDir);
    if (!config.appSecret) config.appSecret = secrets.appSecret;
    embedded = await openEmbeddedCluster({
      dataDir: config.dataDir,
      password: secrets.postgresPassword,
      log: (line) => logger.info(line),
      onSpawned: options.onClusterSpawned,
    });
    url = embedded.url;
  }
  const appSecretGenerated = !config.appSecret;
  appSecretOf(config);
  try {
    if (options.migrate) {
      // On a connection of their own, without the statement timeout of request work: a migration
      // may rewrite a large table.
      const migrations = openDatabase(url, { max: 1 });
      try {
        const { applied, validated } = await migrateToLatest(migrations.db);
        if (applied.length) logger.info({ applied }, 'migrations applied');
        if (validated.length) logger.info({ validated }, 'constraints validated');
      } finally {
        await migrations.close();
      }
    }
  } catch (error) {
    await embedded?.release();
    throw error;
  }
  let closing = false;
  // The embedded cluster's address as it is now: a restarted cluster may listen on another port.
  const cluster = embedded;
  const database = openDatabase(cluster ? () => cluster.url : url, {
    max: options.poolSize,
    // Closing, the pool's last connections may still be ending when the cluster stops: not a loss.
    onError: (error) => {
      if (!closing) logger.warn({ err: error }, 'database connection lost; it will be re-established');
    },
    ...(options.requestWork
      ? {
          statementTimeoutMs: config.databaseStatementTimeoutMs,
          stallCheckMs: STALL_CHECK_MS,
          onAvailability: (available: boolean) => {
            if (available) logger.info('the database answers again; requests are served');
            else
              logger.error(
                'the database is not answering (no reply within seconds): requests fail with 503 until it answers again',
              );
          },
        }
      : {}),
  });

  const onFatal = options.onFatal;
  if (cluster && onFatal) {
    cluster.supervise({
      onLost: (pid) =>
        logger.error({ pid }, `the embedded PostgreSQL (pid ${pid}) stopped unexpectedly; restarting it`),
      onRetry: (error, attempt, retryInMs) =>
        logger.warn(
          { err: error, attempt, retryInMs },
          `the embedded PostgreSQL could not be restarted (attempt ${attempt}); retrying in ${retryInMs} ms`,
        ),
      onRecovered: ({ pid, port, byThisProcess, ms }) =>
        logger.info(
          { pid, port, ms },
          byThisProcess
            ? `embedded PostgreSQL restarted on 127.0.0.1:${port} after ${ms} ms (crash recovery done)`
            : `embedded PostgreSQL restarted by another Emporium process on 127.0.0.1:${port}; reconnected`,
        ),
      onGiveUp: (error) => {
        // The reason: PostgreSQL's last FATAL line in the log tail (earlier ones are the crash itself).
        const lines = error.message.split('\n');
        const fatal = lines
          .findLast((line) => /\b(FATAL|PANIC):/.test(line))
          ?.replace(/^.*?\b(FATAL|PANIC):\s*/, '');
        onFatal(
          `the embedded PostgreSQL stopped and could not be restarted: ${fatal ?? lines[0]} (see ${config.dataDir}/postgres.log)`,
        );
      },
    });
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
