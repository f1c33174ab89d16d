import type pg from 'pg';
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import { type KindMetrics, metricsFor } from './jobs-metrics.js';
import { type PeriodicTaskOptions, periodicTask } from './jobs-periodic.js';
import { createWakeup, type Wakeup } from './wakeup.js';

export { type PeriodicTaskOptions, retentionTask } from './jobs-periodic.js';

/**
 * The job runner: every background loop of the worker (webhook deliveries, push notifications, the
 * pruning of expired rows, log retention) runs on it. A job goes
 *   claim (FOR UPDATE SKIP LOCKED + a lease, one committed statement) → work outside any transaction
 *   → record (several outcomes per statement).
 * The runner owns the loop: LISTEN/NOTIFY wake-ups that are never lost while the loop is busy, the
 * safety-net poll, at most `concurrency` claimed and unrecorded jobs per kind, a graceful stop (no
 * further claim, the jobs in flight finish and are recorded), periodic tasks, and per-kind metrics
 * (emporium_jobs_claimed_total, _succeeded_total, _failed_total, emporium_jobs_in_flight,
 * emporium_job_duration_seconds). The SQL and the rules of each kind stay in its module.
 *
 * A new kind of job is a few lines in the composition root (src/worker.ts), e.g. the expiry of carts:
 *
 *   runner.add<ExpiredCart, void>({
 *     name: 'cart_expiry',                               // metrics label and log field
 *     channel: 'emporium_carts',                         // optional: NOTIFY wakes the loop at once
 *     concurrency: 8,
 *     claim: (limit) => carts.claimExpired(db, limit, LEASE_MS),   // SKIP LOCKED, in the repository
 *     perform: (cart) => carts.releaseStock(cart),       // no transaction held across it
 *     record: (outcomes) => carts.recordExpired(db, outcomes),     // ok + result, or the error
 *     secondsUntilDue: () => carts.secondsUntilNextExpiry(db),  // optional: sleep until then
 *   });
 *
 * and a periodic task one more (retentionTask: the same for "delete what is older than N days"):
 *
 *   runner.every({ name: 'cart_prune', everyMs: 3600_000, run: (signal) => pruneCarts(db, { signal }) });
 *
 * Several processes may run the same kinds against one database: claims take different rows.
 */

/** How one job ended: its result, or what `perform` threw. `at`: when it ended. */
export type JobOutcome<J, R> = { job: J; at: Date } & ({ ok: true; result: R } | { ok: false; error: Error });

export interface JobKind<J, R> {
  /** Names the kind in metrics (label `kind`) and log lines: snake_case. */
  name: string;
  /** The NOTIFY channel announcing work of this kind; without one the loop polls. */
  channel?: string;
  /** Jobs claimed and not yet recorded, at most (slow jobs aside, see `slowAfterMs`). */
  concurrency: number;
  /**
   * Claim only when this many fit, and record this many at a time at least (or whatever has finished
   * once nothing is in flight, or after `recordDelayMs`). Default: a quarter of `concurrency`.
   */
  batchSize?: number;
  /** How long a finished job may wait for others to be recorded with it (ms). Default 5. */
  recordDelayMs?: number;
  /** Safety-net poll when no notification arrives (ms). Default 5 s. */
  pollMs?: number;
  /**
   * A job in flight longer than this (ms) is slow: it no longer counts against `concurrency` (up to
   * twice `concurrency` unrecorded in all), and `claim` and `secondsUntilDue` are told about it (to skip
   * its peers). Default: never slow.
   */
  slowAfterMs?: number;
  /** Claims at most `limit` due jobs and commits (SKIP LOCKED + a lease); `slow`: jobs in flight that are slow. */
  claim(limit: number, slow: readonly J[]): Promise<J[]>;
  /** The work, outside any transaction. A throw is an outcome like any other, given to `record`. */
  perform(job: J): Promise<R>;
  /** Records finished jobs. If it throws, the jobs stay claimed until their lease ends (at least once). */
  record(outcomes: JobOutcome<J, R>[]): Promise<void>;
  /** For the metrics: whether a result is a success (default: every result; a throw is a failure). */
  succeeded?(result: R): boolean;
  /** Seconds until a job (none like `slow`) can be claimed, null: none; the idle loop sleeps that long. */
  secondsUntilDue?(slow: readonly J[]): Promise<number | null>;
  /** Runs before each claim; true when there may be more to do at once. `listening`: LISTEN runs. */
  beforeClaim?(state: { listening: boolean }): Promise<boolean>;
  /**
   * Work may have been announced from outside: a notification, LISTEN (re)started, the safety-net
   * poll ran out, a poke, a failed cycle. Not called for the runner's own wake-ups (a recorded batch).
   */
  onAnnounced?(): void;
}

export interface JobRunnerOptions {
  /** The pool LISTEN connections are taken from; without one every kind polls (and can be poked). */
  pool?: pg.Pool;
  logger: Logger;
  /** The registry the job metrics go to (the app's, served at /metrics); else a private one. */
  registry?: Registry;
}

export interface JobRunner {
  /** Adds a kind of job (before `start`); `poke` wakes its loop as a notification would. */
  add<J, R>(kind: JobKind<J, R>): { poke(): void };
  /** Adds a periodic task (before `start`). */
  every(task: PeriodicTaskOptions): void;
  start(): void;
  /**
   * Stops claiming and scheduling, aborts the periodic runs in progress, lets the jobs in flight
   * finish, records them, and gives the LISTEN connections back.
   */
  stop(): Promise<void>;
}

const DEFAULT_POLL_MS = 5_000;
/** Pause after a failed cycle (a claim that threw: the database is away, say). */
const RETRY_AFTER_FAILURE_MS = 1_000;

const asError = (error: unknown) => (error instanceof Error ? error : new Error(String(error)));

export function createJobRunner(options: JobRunnerOptions): JobRunner {
  const { logger } = options;
  const registry = options.registry ?? new Registry();
  const loops: { start(): void; stop(): Promise<void> }[] = [];
  let started = false;
  const beforeStart = (what: string) => {
    if (started) throw new Error(`${what}: add kinds and tasks before the runner starts`);
  };
  return {
    add(kind) {
      beforeStart(`job kind ${kind.name}`);
      const loop = kindLoop(kind, options, metricsFor(registry, kind.name));
      loops.push(loop);
      return { poke: loop.poke };
    },
    every(task) {
      beforeStart(`periodic task ${task.name}`);
      loops.push(periodicTask(task, logger, metricsFor(registry, task.name)));
    },
    start() {
      if (started) return;
      started = true;
      for (const loop of loops) loop.start();
    },
    async stop() {
      await Promise.all(loops.map((loop) => loop.stop()));
    },
  };
}

/** The loop of one kind: claim what there is room for, work, record in batches, sleep until woken. */
function kindLoop<J, R>(kind: JobKind<J, R>, options: JobRunnerOptions, metrics: KindMetrics) {
  const { logger } = options;
  const { concurrency } = kind;
  const batchSize = Math.min(concurrency, kind.batchSize ?? Math.max(1, Math.floor(concurrency / 4)));
  const pollMs = kind.pollMs ?? DEFAULT_POLL_MS;
  const recordDelayMs = kind.recordDelayMs ?? 5;
  const { slowAfterMs } = kind;
  let running = false;
  let loop: Promise<void> | undefined;
  /** Claimed and not yet recorded: in flight, in `finished`, or in the batch being recorded. */
  let unrecorded = 0;
  /** Jobs in flight, and since when (ms). */
  const inFlight = new Map<J, number>();
  let finished: JobOutcome<J, R>[] = [];
  /** The recording of finished jobs, while it runs (one batch at a time). */
  let recording: Promise<void> | undefined;
  let recordTimer: NodeJS.Timeout | undefined;
  /** Who waits for the last job in flight to end (stop). */
  let drained: (() => void) | undefined;
  const announced = () => kind.onAnnounced?.();
  const wakeup: Wakeup = createWakeup({
    pool: options.pool,
    channel: kind.channel,
    name: kind.name,
    logger,
    onNotification: announced,
    onListening: announced,
  });

  async function work(job: J) {
    const startedAt = performance.now();
    inFlight.set(job, Date.now());
    let outcome: JobOutcome<J, R>;
    try {
      const result = await kind.perform(job);
      outcome = { job, at: new Date(), ok: true, result };
      (kind.succeeded?.(result) === false ? metrics.failed : metrics.succeeded).inc();
    } catch (error) {
      outcome = { job, at: new Date(), ok: false, error: asError(error) };
      metrics.failed.inc();
    }
    metrics.duration.observe((performance.now() - startedAt) / 1000);
    inFlight.delete(job);
    finished.push(outcome);
    if (inFlight.size === 0) drained?.();
    recordWhenReady();
  }

  /** A batch is ready: `batchSize` jobs finished, or all that was claimed (else a timer decides). */
  const batchReady = () => finished.length >= batchSize || (finished.length > 0 && inFlight.size === 0);

  function recordWhenReady() {
    if (recording || finished.length === 0) return;
    if (batchReady()) startRecording();
    else
      recordTimer ??= setTimeout(() => {
        recordTimer = undefined;
        startRecording();
      }, recordDelayMs);
  }

  /** Records what has finished, batch after batch, while a batch is ready; each batch frees room. */
  function startRecording() {
    if (recording || finished.length === 0) return;
    clearTimeout(recordTimer);
    recordTimer = undefined;
    recording = (async () => {
      do {
        const batch = finished;
        finished = [];
        try {
          await kind.record(batch);
        } catch (error) {
          // The jobs stay claimed until their lease ends, then are claimed again: at least once.
          logger.error({ err: error, kind: kind.name, count: batch.length }, 'could not record jobs');
        }
        unrecorded -= batch.length;
        metrics.inFlight.dec(batch.length);
        wakeup.poke(); // room to claim
      } while (batchReady());
    })().finally(() => {
      recording = undefined;
      recordWhenReady(); // what finished meanwhile
    });
  }

  /** The jobs in flight for longer than `slowAfterMs`, and when the next of the others turns slow. */
  function slowJobs(now: number): { jobs: J[]; nextAt: number } {
    const jobs: J[] = [];
    let nextAt = Number.POSITIVE_INFINITY;
    if (slowAfterMs === undefined) return { jobs, nextAt };
    for (const [job, since] of inFlight) {
      if (now - since >= slowAfterMs) jobs.push(job);
      else nextAt = Math.min(nextAt, since + slowAfterMs);
    }
    return { jobs, nextAt };
  }

  /** Claims the kind may take now: `concurrency` besides the slow jobs, never twice that unrecorded. */
  const roomFor = (slow: { jobs: J[] }) =>
    Math.min(concurrency - (unrecorded - slow.jobs.length), 2 * concurrency - unrecorded);

  /** Claims what there is room for; true if there may be more to do now. */
  async function cycle(): Promise<boolean> {
    if (running) await wakeup.listen();
    let busy = (await kind.beforeClaim?.({ listening: wakeup.listening })) ?? false;
    const slow = slowJobs(Date.now());
    const room = roomFor(slow);
    if (room >= batchSize && running) {
      const jobs = await kind.claim(room, slow.jobs);
      if (jobs.length === room) busy = true;
      if (jobs.length > 0) {
        unrecorded += jobs.length;
        metrics.claimed.inc(jobs.length);
        metrics.inFlight.inc(jobs.length);
        for (const job of jobs) void work(job);
      }
    }
    return busy;
  }

  /**
   * How long to sleep when there is nothing to do at once: with jobs unrecorded, until a batch is
   * recorded (a poke), a job turns slow, or, beside slow jobs, the next job due to others; idle, until
   * the next job is due. Never longer than the poll.
   */
  async function idleMs(): Promise<number> {
    const now = Date.now();
    const slow = slowJobs(now);
    let wait = pollMs;
    let ask: J[] | undefined;
    if (unrecorded === 0) ask = [];
    else {
      wait = Math.min(wait, slow.nextAt - now);
      if (slow.jobs.length > 0 && roomFor(slow) >= batchSize) ask = slow.jobs;
    }
    if (ask && kind.secondsUntilDue) {
      const seconds = await kind.secondsUntilDue(ask).catch(() => null);
      if (seconds !== null) wait = Math.min(wait, Math.max(0, seconds * 1000));
    }
    return wait;
  }

  /** Sleeps until poked or `ms` passed; a poll that ran out may have missed an announcement. */
  async function sleep(ms: number) {
    if (ms > 0 && (await wakeup.sleep(ms))) announced();
  }

  async function run() {
    while (running) {
      try {
        if (await cycle()) continue;
      } catch (error) {
        announced();
        logger.error({ err: error, kind: kind.name }, 'job cycle failed; retrying');
        await sleep(RETRY_AFTER_FAILURE_MS);
        continue;
      }
      // Poked while busy: go round again at once (that sleep returns at once and clears the poke).
      if (wakeup.pending) await wakeup.sleep(0);
      else await sleep(await idleMs());
    }
  }

  return {
    start() {
      if (running) return;
      running = true;
      loop = run();
    },
    async stop() {
      if (!running) return;
      running = false;
      wakeup.poke();
      await loop;
      while (inFlight.size > 0)
        await new Promise<void>((resolve) => {
          drained = resolve;
        });
      drained = undefined;
      while (recording || finished.length > 0) {
        startRecording();
        await recording;
      }
      await wakeup.close();
    },
    poke() {
      announced();
      wakeup.poke();
    },
  };
}
