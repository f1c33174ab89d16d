import type { Logger } from 'pino';
import type { Db, Tx } from './db/database.js';
import { inLongTransaction } from './db/transaction.js';
import type { KindMetrics } from './jobs-metrics.js';

/** The job runner's periodic tasks (platform/jobs.ts: `runner.every(task)`). */
export interface PeriodicTaskOptions {
  /** Names the task in metrics (label `kind`) and log lines: snake_case. */
  name: string;
  /** Time between the end of one run and the start of the next (ms), before jitter. */
  everyMs: number;
  /** ± this fraction of `everyMs` on each wait, so that several workers drift apart. Default 0.1. */
  jitter?: number;
  /** Also run once right after starting (default true). */
  runAtStart?: boolean;
  /** One run; `signal` aborts when the runner stops (a long run should stop between steps). */
  run(signal: AbortSignal): Promise<void>;
}

/**
 * A task run on a schedule: once at start (unless `runAtStart` is false), then every `everyMs` ±
 * jitter from the end of the previous run, so a run never overlaps itself. A failing run is logged
 * and counted, and the schedule goes on. Runs in several processes at once are the task's own
 * concern (its statements must be safe side by side: bounded deletes with SKIP LOCKED).
 */
export function periodicTask(task: PeriodicTaskOptions, logger: Logger, metrics: KindMetrics) {
  const jitter = task.jitter ?? 0.1;
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> | undefined;
  const delay = () => Math.max(0, task.everyMs * (1 + jitter * (2 * Math.random() - 1)));

  function schedule(ms: number) {
    if (abort.signal.aborted) return;
    timer = setTimeout(runOnce, ms);
    timer.unref(); // a forgotten task never keeps the process alive
  }

  function runOnce() {
    timer = undefined;
    const startedAt = performance.now();
    current = (async () => {
      try {
        await task.run(abort.signal);
        metrics.succeeded.inc();
      } catch (error) {
        if (abort.signal.aborted) return;
        metrics.failed.inc();
        logger.error({ err: error, task: task.name }, 'periodic task failed');
      }
    })().finally(() => {
      metrics.duration.observe((performance.now() - startedAt) / 1000);
      current = undefined;
      schedule(delay());
    });
  }

  return {
    start() {
      schedule(task.runAtStart === false ? delay() : 0);
    },
    async stop() {
      abort.abort();
      clearTimeout(timer);
      timer = undefined;
      await current;
    },
  };
}

/**
 * A periodic task that deletes what is older than `days`, hourly and once at start, in one
 * transaction without the statement timeout (a large log may take long: DATABASE_STATEMENT_TIMEOUT_MS
 * is for requests), and logs what it removed, if anything: `prune(tx, before)` says how many rows it
 * deleted, by table.
 */
export function retentionTask(
  name: string,
  options: { db: Db; days: number; logger: Logger },
  prune: (tx: Tx, before: Date) => Promise<Record<string, number>>,
): PeriodicTaskOptions {
  return {
    name,
    everyMs: 3600_000,
    async run() {
      const before = new Date(Date.now() - options.days * 86_400_000);
      const removed = await inLongTransaction(options.db, (tx) => prune(tx, before));
      if (Object.values(removed).some((count) => count > 0))
        options.logger.info({ task: name, ...removed }, 'old rows pruned');
    },
  };
}
