import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/**
 * The job runner's metrics (platform/jobs.ts), labelled by kind of job or periodic task: created on a
 * registry once, however many runners use it (tests start several background workers on one app).
 */
export type KindMetrics = ReturnType<typeof metricsFor>;

const metricsByRegistry = new WeakMap<Registry, ReturnType<typeof createJobMetrics>>();

function createJobMetrics(registry: Registry) {
  const labelNames = ['kind'] as const;
  const registers = [registry];
  return {
    claimed: new Counter({
      name: 'emporium_jobs_claimed_total',
      help: 'Jobs claimed',
      labelNames,
      registers,
    }),
    succeeded: new Counter({
      name: 'emporium_jobs_succeeded_total',
      help: 'Jobs (and periodic runs) that succeeded',
      labelNames,
      registers,
    }),
    failed: new Counter({
      name: 'emporium_jobs_failed_total',
      help: 'Jobs (and periodic runs) that failed or threw',
      labelNames,
      registers,
    }),
    inFlight: new Gauge({
      name: 'emporium_jobs_in_flight',
      help: 'Jobs claimed and not yet recorded',
      labelNames,
      registers,
    }),
    duration: new Histogram({
      name: 'emporium_job_duration_seconds',
      help: 'Time to do a job outside any transaction, or to run a periodic task',
      labelNames,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    }),
  };
}

/** The metrics of one kind, bound to its label (a runner on a registry registers them once). */
export function metricsFor(registry: Registry, kind: string) {
  let all = metricsByRegistry.get(registry);
  if (!all) {
    all = createJobMetrics(registry);
    metricsByRegistry.set(registry, all);
  }
  const labels = { kind };
  return {
    claimed: all.claimed.labels(labels),
    succeeded: all.succeeded.labels(labels),
    failed: all.failed.labels(labels),
    inFlight: all.inFlight.labels(labels),
    duration: all.duration.labels(labels),
  };
}
