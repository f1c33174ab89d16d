import type { Logger } from 'pino';
import type { App } from './app.js';
import type { Config } from './config.js';
import { releaseStartupGarbage } from './platform/heap.js';
import { openRuntime } from './runtime.js';
import type { BackgroundWorker } from './worker.js';

/** A start that cannot complete for a reason the operator can fix; reported as one line. */
export class StartError extends Error {}

export interface ServeOptions {
  port?: number;
  worker: boolean;
}

/**
 * On SIGTERM/SIGINT: runs `steps` in order (each stops accepting new work and finishes what is in
 * flight), then exits 0; a shutdown longer than 30 s exits 1.
 */
/** Long-running processes on an external database must share APP_SECRET: say so when it is not set. */
function warnAboutLocalAppSecret(runtime: { appSecretGenerated: boolean }, logger: Logger) {
  if (runtime.appSecretGenerated)
    logger.warn(
      'APP_SECRET is not set: using one generated in DATA_DIR; set APP_SECRET so every process shares it',
    );
}

/**
 * For openRuntime's `onFatal` (the embedded cluster died and cannot be restarted): one fatal log line
 * and one stderr line, then `steps` (at most 5 s) and exit 1, so a supervisor restarts the process.
 */
function exitOnFatal(logger: Logger, steps: () => Promise<void>) {
  let exiting = false;
  return (message: string) => {
    if (exiting) return;
    exiting = true;
    logger.fatal(message);
    process.stderr.write(`emporium: ${message}\n`);
    setTimeout(() => process.exit(1), 5000).unref();
    void steps()
      .catch(() => {})
      .finally(() => {
        process.exitCode = 1;
        // As on shutdown: let the logger's writes drain before the exit.
        setTimeout(() => process.exit(1), 500);
      });
  };
}

function shutdownOn(logger: Logger, steps: () => Promise<void>) {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing in-flight work');
    const forced = setTimeout(() => {
      logger.error('shutdown took longer than 30 s; exiting');
      process.exit(1);
    }, 30_000);
    forced.unref();
    try {
      await steps();
      logger.info('shutdown complete');
      // Exiting at once would cut the logger's asynchronous writes short (lines lost or out of
      // order): let the event loop drain, and exit shortly after only if a stray handle remains.
      process.exitCode = 0;
      setTimeout(() => process.exit(0), 500).unref();
    } catch (error) {
      logger.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}

/**
 * `emporium serve`: opens the database (starting the embedded cluster when there is no
 * DATABASE_URL), migrates, listens, runs the background worker unless told not to, and on
 * SIGTERM/SIGINT stops accepting, lets in-flight requests and deliveries finish, closes the
 * database and exits 0.
 */
export async function serve(config: Config, logger: Logger, options: ServeOptions): Promise<void> {
  const startedAt = performance.now();
  let app: App | undefined;
  let worker: BackgroundWorker | undefined;
  // The application's modules (most of start-up's CPU) load while the embedded cluster starts and the
  // migrations are checked, which is PostgreSQL's work in processes of its own: as soon as the
  // postmaster is spawned, else once the database is open (docs/performance.md, start-up).
  let loading: Promise<[typeof import('./app.js'), typeof import('./demo.js'), typeof import('./worker.js')]>;
  const load = () => {
    loading ??= Promise.all([import('./app.js'), import('./demo.js'), import('./worker.js')]);
    return loading;
  };
  const runtime = await openRuntime(config, logger, {
    migrate: true,
    requestWork: true,
    onClusterSpawned: () => void load().catch(() => {}), // awaited below, once the runtime is open
    onFatal: exitOnFatal(logger, async () => {
      await app?.server.close();
      await worker?.stop();
      await runtime.close();
    }),
  });
  const port = options.port ?? config.port;
  try {
    const [{ buildApp }, { createDemoStoreOnFirstStart }, { startBackgroundWorker }] = await load();
    warnAboutLocalAppSecret(runtime, logger);
    app = await buildApp({
      config,
      db: runtime.database.db,
      pool: runtime.database.pool,
      logger,
      rateLimitStore: runtime.rateLimitStore,
    });
    if (runtime.embedded && !config.production) {
      await createDemoStoreOnFirstStart(app, runtime.database.db, config, logger);
    }
    await app.server.listen({ port, host: config.host }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') {
        throw new StartError(
          `port ${port} is already in use on ${config.host}; stop what uses it, or choose another with PORT or --port`,
        );
      }
      if (error.code === 'EACCES') {
        throw new StartError(`port ${port} on ${config.host} needs privileges this process does not have`);
      }
      throw error;
    });
    if (options.worker) {
      worker = startBackgroundWorker({
        config,
        db: runtime.database.db,
        pool: runtime.database.pool,
        logger,
        metrics: app.metrics,
      });
    }
  } catch (error) {
    // Whatever was opened goes: the embedded cluster is stopped when this process was its last user.
    await worker?.stop().catch(() => {});
    await app?.server.close().catch(() => {});
    await runtime
      .close()
      .catch((closeError: unknown) =>
        logger.error({ err: closeError }, 'could not close the database after the failed start'),
      );
    throw error;
  }
  const server = app.server;
  logger.info(
    {
      port,
      mode: runtime.embedded ? 'embedded' : 'external',
      worker: options.worker,
      startupMs: Math.round(performance.now() - startedAt),
    },
    `Emporium ready on ${config.publicUrl} (API reference at ${config.publicUrl}/docs)`,
  );
  const collecting = releaseStartupGarbage();

  shutdownOn(logger, async () => {
    clearTimeout(collecting);
    // Fastify closes the keep-alive connections that are idle when it closes; one whose request is
    // still in flight goes idle later and would hold the close open for its keep-alive timeout (72 s,
    // past the 30 s limit). Close those too, as soon as their response is sent.
    const closeIdle = setInterval(() => server.server.closeIdleConnections(), 100);
    await server.close();
    clearInterval(closeIdle);
    await worker?.stop();
    await runtime.close();
  });
}

/** `emporium worker`: the background worker alone (webhook deliveries), until SIGTERM. */
export async function work(config: Config, logger: Logger): Promise<void> {
  let worker: BackgroundWorker | undefined;
  let loading: Promise<typeof import('./worker.js')> | undefined;
  const load = () => {
    loading ??= import('./worker.js');
    return loading;
  };
  const runtime = await openRuntime(config, logger, {
    migrate: true,
    poolSize: 6,
    requestWork: true,
    onFatal: exitOnFatal(logger, async () => {
      await worker?.stop();
      await runtime.close();
    }),
    onClusterSpawned: () => void load().catch(() => {}), // as in serve()
  });
  const { startBackgroundWorker } = await load().catch(async (error: unknown) => {
    await runtime.close().catch(() => {});
    throw error;
  });
  warnAboutLocalAppSecret(runtime, logger);
  const started = startBackgroundWorker({
    config,
    db: runtime.database.db,
    pool: runtime.database.pool,
    logger,
  });
  worker = started;
  shutdownOn(logger, async () => {
    await started.stop();
    await runtime.close();
  });
}
