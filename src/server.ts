import type { Logger } from 'pino';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { createDemoStoreOnFirstStart } from './demo.js';
import { openRuntime } from './runtime.js';

export interface ServeOptions {
  port?: number;
  worker: boolean;
}

/**
 * `emporium serve`: opens the database (starting the embedded cluster when there is no
 * DATABASE_URL), migrates, listens, and on SIGTERM/SIGINT stops accepting, lets in-flight requests
 * finish, closes the database and exits 0.
 */
export async function serve(config: Config, logger: Logger, options: ServeOptions): Promise<void> {
  const startedAt = performance.now();
  const runtime = await openRuntime(config, logger, { migrate: true });
  const app = await buildApp({
    config,
    db: runtime.database.db,
    logger,
    rateLimitStore: runtime.rateLimitStore,
  });
  if (runtime.embedded && !config.production) {
    await createDemoStoreOnFirstStart(app, config, logger);
  }
  const port = options.port ?? config.port;
  await app.server.listen({ port, host: config.host });
  logger.info(
    {
      port,
      mode: runtime.embedded ? 'embedded' : 'external',
      startupMs: Math.round(performance.now() - startedAt),
    },
    `Emporium ready on ${config.publicUrl} (API reference at ${config.publicUrl}/docs)`,
  );

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    const forced = setTimeout(() => {
      logger.error('shutdown took longer than 30 s; exiting');
      process.exit(1);
    }, 30_000);
    forced.unref();
    // Fastify closes the keep-alive connections that are idle when it closes; one whose request is
    // still in flight goes idle later and would hold the close open for its keep-alive timeout (72 s,
    // past the 30 s limit). Close those too, as soon as their response is sent.
    const closeIdle = setInterval(() => app.server.server.closeIdleConnections(), 100);
    try {
      await app.server.close();
      clearInterval(closeIdle);
      await runtime.close();
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
