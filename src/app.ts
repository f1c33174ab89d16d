import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { AppDeps } from './app-deps.js';
import { registerRoutes } from './app-routes.js';
import { type Services, type Wiring, wireServices } from './app-services.js';
import type { MediaStorage } from './modules/media/index.js';
import { pendingDeliveries } from './modules/webhooks/index.js';
import { createHttpServer } from './platform/http/server.js';
import { createMetrics, installRequestMetrics, type Metrics } from './platform/metrics.js';
import { routedUrl, type shopRoutingErrorPage } from './shop/index.js';

export type { AppDeps, Services };

export interface App {
  server: FastifyInstance;
  mediaStorage: MediaStorage;
  services: Services;
  metrics: Metrics;
}

/** The composition root: platform plugins first, then each module's routes, listed explicitly. */
export async function buildApp(deps: AppDeps): Promise<App> {
  const { config, db } = deps;
  // Set once the services and routes exist below; asked at request time only.
  let shopRoutingError: ReturnType<typeof shopRoutingErrorPage> | undefined;
  let wiring: Wiring;
  const server = createHttpServer(deps.logger as FastifyBaseLogger, {
    routingErrorPage: (error, request, reply) => shopRoutingError?.(error, request, reply) ?? false,
    // Asked at request time only, once `stores` below exists.
    rewriteUrl: (url, host) =>
      routedUrl(url, host, (name) => wiring.services.stores.slugOfCustomDomain(name)),
    trustProxy: config.trustProxy,
    limits: config.httpLimits,
    https: config.publicUrl.startsWith('https:'),
  });

  const metrics = createMetrics();
  wiring = await wireServices(deps, server);
  installRequestMetrics(server, metrics);
  metrics.setQueueDepthSource(() => pendingDeliveries(db));
  shopRoutingError = await registerRoutes(server, deps, wiring, metrics);
  await server.ready();
  return { server, services: wiring.services, metrics, mediaStorage: wiring.storage };
}
