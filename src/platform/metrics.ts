import type { FastifyInstance } from 'fastify';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** One registry per app instance, so tests building several apps do not collide. */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'emporium_http_requests_total',
    help: 'HTTP requests by method, route and status',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'emporium_http_request_duration_seconds',
    help: 'HTTP request duration by method, route and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const deliveries = new Counter({
    name: 'emporium_webhook_attempts_total',
    help: 'Webhook delivery attempts by outcome (succeeded, pending = will retry, failed)',
    labelNames: ['outcome'],
    registers: [registry],
  });
  let queueDepth: (() => Promise<number>) | undefined;
  new Gauge({
    name: 'emporium_webhook_queue_depth',
    help: 'Webhook deliveries waiting to be sent (due now or scheduled for a retry)',
    registers: [registry],
    async collect() {
      if (queueDepth) this.set(await queueDepth().catch(() => Number.NaN));
    },
  });
  return {
    registry,
    requests,
    duration,
    deliveries,
    /** Where the queue-depth gauge reads its value (the database, set by the composition root). */
    setQueueDepthSource(source: () => Promise<number>) {
      queueDepth = source;
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

export function installRequestMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', async (request, reply) => {
    // The route pattern, never the raw URL: ids in paths would explode the label cardinality.
    const labels = {
      method: request.method,
      route: request.routeOptions.url ?? 'unmatched',
      status: String(reply.statusCode),
    };
    metrics.requests.inc(labels);
    metrics.duration.observe(labels, reply.elapsedTime / 1000);
  });
}
