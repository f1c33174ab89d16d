import { sql } from 'kysely';
import pino from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseHandle, openDatabase } from '../../src/platform/db/database.js';
import {
  createJobRunner,
  type JobKind,
  type JobOutcome,
  type JobRunner,
  retentionTask,
} from '../../src/platform/jobs.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

/**
 * The job runner (src/platform/jobs.ts) on a real database: a table of test jobs claimed with FOR
 * UPDATE SKIP LOCKED and a lease, announced by NOTIFY at commit, worked outside any transaction and
 * recorded in batches, exactly as the webhook and push kinds do.
 */
const CHANNEL = 'jobs_test';
const silent = pino({ level: 'silent' });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let database: TestDatabase;
let handle: DatabaseHandle;
const db = () => handle.db;

interface TestJob {
  id: number;
  batch: string;
  payload: string;
  attempts: number;
}

beforeAll(async () => {
  database = await createTestDatabase();
  handle = openDatabase(database.url, { max: 6 });
  await sql`
    CREATE TABLE test_jobs (
      id serial PRIMARY KEY,
      batch text NOT NULL,
      payload text NOT NULL DEFAULT '',
      status text NOT NULL DEFAULT 'pending',
      attempts int NOT NULL DEFAULT 0,
      locked_until timestamptz,
      error text,
      done_at timestamptz
    )`.execute(db());
});
afterAll(async () => {
  await handle?.close();
  await database?.drop();
});

/** Queues `count` jobs of `batch` in one transaction that NOTIFYs at commit. */
async function enqueue(batch: string, count: number, payload = (_n: number) => '') {
  await db()
    .transaction()
    .execute(async (tx) => {
      for (let n = 0; n < count; n++)
        await sql`INSERT INTO test_jobs (batch, payload) VALUES (${batch}, ${payload(n)})`.execute(tx);
      await sql`SELECT pg_notify(${CHANNEL}, '')`.execute(tx);
    });
}

/** The claim as a repository writes it: SKIP LOCKED, a lease, the attempt counted; committed. */
async function claimJobs(batch: string, limit: number): Promise<TestJob[]> {
  const result = await sql<TestJob>`
    WITH due AS (
      SELECT id FROM test_jobs
      WHERE batch = ${batch} AND status = 'pending' AND (locked_until IS NULL OR locked_until < now())
      ORDER BY id LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    )
    UPDATE test_jobs j SET locked_until = now() + interval '60 seconds', attempts = j.attempts + 1
    FROM due WHERE j.id = due.id
    RETURNING j.id, j.batch, j.payload, j.attempts`.execute(db());
  return result.rows;
}

/** Records outcomes in one statement: done, or failed with the error; releases the lease. */
async function recordJobs(outcomes: JobOutcome<TestJob, string>[]) {
  if (outcomes.length === 0) return;
  await sql`
    UPDATE test_jobs j SET status = u.status, error = u.error, locked_until = NULL, done_at = now()
    FROM unnest(${sql.val(outcomes.map((o) => o.job.id))}::int[],
      ${sql.val(outcomes.map((o) => (o.ok ? 'done' : 'failed')))}::text[],
      ${sql.val(outcomes.map((o) => (o.ok ? null : o.error.message)))}::text[]) AS u(id, status, error)
    WHERE j.id = u.id`.execute(db());
}

async function rowsOf(batch: string) {
  const result = await sql<{ id: number; status: string; attempts: number; error: string | null }>`
    SELECT id, status, attempts, error FROM test_jobs WHERE batch = ${batch} ORDER BY id`.execute(db());
  return result.rows;
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, ms = 15_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await sleep(20);
  }
}

/** Waits until every job of `batch` is done. */
const allDone = (batch: string) =>
  until(
    () => rowsOf(batch),
    (rows) => rows.every((r) => r.status === 'done'),
    `the jobs of ${batch} to be done`,
  );

/** A metric's value for one kind (0 when absent); for a histogram, its count. */
async function metric(registry: Registry, name: string, kind: string) {
  const found = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
  const values = (found?.values ?? []) as {
    value: number;
    labels: Record<string, unknown>;
    metricName?: string;
  }[];
  const value = values.find(
    (v) => v.labels.kind === kind && (v.metricName === undefined || v.metricName.endsWith('_count')),
  );
  return value?.value ?? 0;
}

function kindOf(batch: string, overrides: Partial<JobKind<TestJob, string>> = {}): JobKind<TestJob, string> {
  return {
    name: batch,
    channel: CHANNEL,
    concurrency: 8,
    pollMs: 60_000, // far beyond every wait below: what happens, happens through NOTIFY and pokes
    claim: (limit) => claimJobs(batch, limit),
    perform: async (job) => `done ${job.id}`,
    record: recordJobs,
    ...overrides,
  };
}

function runnerWith(kind: JobKind<TestJob, string>, registry = new Registry()) {
  const runner = createJobRunner({ pool: handle.pool, logger: silent, registry });
  const handleOf = runner.add(kind);
  runner.start();
  return { runner, registry, poke: handleOf.poke };
}

describe('job runner: kinds of job', () => {
  it('a burst of 300 jobs: never more than `concurrency` claimed and unrecorded, each done once', async () => {
    const concurrency = 8;
    let performing = 0;
    let mostPerforming = 0;
    let claimed = 0;
    let recorded = 0;
    let mostUnrecorded = 0;
    const { runner, registry } = runnerWith(
      kindOf('burst', {
        concurrency,
        async claim(limit) {
          const jobs = await claimJobs('burst', limit);
          claimed += jobs.length;
          mostUnrecorded = Math.max(mostUnrecorded, claimed - recorded);
          return jobs;
        },
        async perform(job) {
          performing++;
          mostPerforming = Math.max(mostPerforming, performing);
          await sleep(2 + (job.id % 7));
          performing--;
          return 'ok';
        },
        async record(outcomes) {
          await recordJobs(outcomes);
          recorded += outcomes.length;
        },
      }),
    );
    try {
      await sleep(100); // idle, asleep on its poll
      await enqueue('burst', 300);
      await allDone('burst');
    } finally {
      await runner.stop();
    }
    console.log(
      `burst of 300: at most ${mostPerforming} performing and ${mostUnrecorded} claimed and unrecorded at once (concurrency ${concurrency})`,
    );
    expect(mostUnrecorded).toBeLessThanOrEqual(concurrency);
    expect(mostPerforming).toBeLessThanOrEqual(concurrency);
    expect(mostPerforming).toBeGreaterThanOrEqual(concurrency / 2); // it does run them side by side
    expect((await rowsOf('burst')).map((r) => r.attempts)).toEqual(Array(300).fill(1));
    expect(await metric(registry, 'emporium_jobs_claimed_total', 'burst')).toBe(300);
    expect(await metric(registry, 'emporium_jobs_succeeded_total', 'burst')).toBe(300);
    expect(await metric(registry, 'emporium_jobs_failed_total', 'burst')).toBe(0);
    expect(await metric(registry, 'emporium_jobs_in_flight', 'burst')).toBe(0);
    expect(await metric(registry, 'emporium_job_duration_seconds', 'burst')).toBe(300);
  });

  it('two runners on one registry (two workers of one app): the claims split the jobs, the metrics add up', async () => {
    const registry = new Registry();
    const seenBy = new Map<number, string>();
    const kind = (runner: string) =>
      kindOf('shared', {
        async perform(job) {
          seenBy.set(job.id, runner);
          await sleep(job.id % 5);
          return 'ok';
        },
      });
    const first = runnerWith(kind('first'), registry);
    const second = runnerWith(kind('second'), registry);
    try {
      await enqueue('shared', 200);
      await allDone('shared');
    } finally {
      await Promise.all([first.runner.stop(), second.runner.stop()]);
    }
    expect((await rowsOf('shared')).map((r) => r.attempts)).toEqual(Array(200).fill(1));
    expect(new Set(seenBy.values())).toEqual(new Set(['first', 'second']));
    expect(await metric(registry, 'emporium_jobs_claimed_total', 'shared')).toBe(200);
    expect(await metric(registry, 'emporium_jobs_succeeded_total', 'shared')).toBe(200);
  });

  it('a NOTIFY that arrives while the loop is busy claiming is not lost (the poll is 60 s away)', async () => {
    /** While set, the claim holds its (empty) answer until the job below is committed and announced. */
    let during: (() => Promise<void>) | undefined;
    let claims = 0;
    const { runner } = runnerWith(
      kindOf('busy', {
        async claim(limit) {
          claims++;
          const jobs = await claimJobs('busy', limit);
          const hold = during;
          during = undefined;
          await hold?.();
          return jobs;
        },
      }),
    );
    let announcedAt = 0;
    try {
      await sleep(100); // asleep
      const held = new Promise<void>((resolve) => {
        during = async () => {
          // The claim has read the table (nothing): a job now committed is one it did not see.
          await enqueue('busy', 1);
          announcedAt = Date.now();
          await sleep(100); // the notification reaches the runner's LISTEN connection meanwhile
          resolve();
        };
      });
      // A poke wakes the loop to claim (and hold); the NOTIFY then comes while it is awake.
      await enqueue('busy-other', 0);
      await held;
      await until(
        () => rowsOf('busy'),
        (rows) => rows[0]?.status === 'done',
        'the job announced while the loop was busy',
        5_000,
      );
      // Then it sleeps again: the poke it was woken by is spent, it does not go round and round.
      const claimsBefore = claims;
      await sleep(300);
      expect(claims - claimsBefore).toBeLessThanOrEqual(1);
    } finally {
      await runner.stop();
    }
    const doneAfterMs = Date.now() - announcedAt;
    console.log(`job announced during a claim: done ${doneAfterMs} ms after its NOTIFY (poll: 60 s)`);
    expect(doneAfterMs).toBeLessThan(5_000);
  });

  it('stop waits for the jobs in flight, records them, claims nothing more, gives its connections back', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let performing = 0;
    let claimsAfterStop = 0;
    let stopping = false;
    const { runner } = runnerWith(
      kindOf('stop', {
        concurrency: 4,
        batchSize: 1,
        async claim(limit) {
          if (stopping) claimsAfterStop++;
          return claimJobs('stop', limit);
        },
        async perform() {
          performing++;
          await gate;
          return 'ok';
        },
      }),
    );
    await enqueue('stop', 10);
    await until(
      async () => performing,
      (n) => n === 4,
      'four jobs in flight',
    );
    stopping = true;
    let stopped = false;
    const stop = runner.stop().then(() => {
      stopped = true;
    });
    await sleep(200);
    expect(stopped).toBe(false); // four jobs still in flight
    await enqueue('stop', 1); // announced during the stop: not claimed
    release();
    await stop;
    const rows = await rowsOf('stop');
    expect(rows.filter((r) => r.status === 'done')).toHaveLength(4); // finished and recorded
    expect(rows.filter((r) => r.status === 'pending').map((r) => r.attempts)).toEqual(Array(7).fill(0));
    expect(claimsAfterStop).toBe(0);
    expect(performing).toBe(4);
    await sleep(200);
    expect((await rowsOf('stop')).filter((r) => r.status === 'pending')).toHaveLength(7);
    // The LISTEN connection went back to the pool: nothing is checked out.
    expect(handle.pool.totalCount - handle.pool.idleCount).toBe(0);
  });

  it('a job that throws is recorded as failed and the loop goes on; so does a claim that throws', async () => {
    const errors: { msg: string; kind?: string }[] = [];
    const logger = pino({ level: 'error' }, { write: (line: string) => errors.push(JSON.parse(line)) });
    let claims = 0;
    const registry = new Registry();
    const runner = createJobRunner({ pool: handle.pool, logger, registry });
    runner.add(
      kindOf('throws', {
        async claim(limit) {
          if (++claims === 2) throw new Error('the database went away');
          return claimJobs('throws', limit);
        },
        async perform(job) {
          if (job.payload === 'bad') throw new Error(`job ${job.id} is bad`);
          return 'ok';
        },
      }),
    );
    runner.start();
    try {
      await enqueue('throws', 20, (n) => (n % 2 === 0 ? 'bad' : 'good'));
      const rows = await until(
        () => rowsOf('throws'),
        (r) => r.length === 20 && r.every((row) => row.status !== 'pending'),
        'every job recorded',
      );
      for (const row of rows.filter((r) => r.status === 'failed'))
        expect(row.error).toBe(`job ${row.id} is bad`);
      expect(rows.filter((r) => r.status === 'failed')).toHaveLength(10);
      // After both, the loop still claims.
      await enqueue('throws', 3, () => 'good');
      await until(
        () => rowsOf('throws'),
        (r) => r.length === 23 && r.every((row) => row.status !== 'pending'),
        'the jobs queued afterwards',
      );
    } finally {
      await runner.stop();
    }
    expect(await metric(registry, 'emporium_jobs_failed_total', 'throws')).toBe(10);
    expect(await metric(registry, 'emporium_jobs_succeeded_total', 'throws')).toBe(13);
    expect(errors.map((e) => [e.msg, e.kind])).toContainEqual(['job cycle failed; retrying', 'throws']);
  });

  it('slow jobs stop counting against concurrency and are named to the claim; never twice concurrency', async () => {
    let unrecordedMost = 0;
    let claimed = 0;
    let recorded = 0;
    const skipped: number[] = [];
    const { runner } = runnerWith(
      kindOf('slow', {
        concurrency: 2,
        batchSize: 1,
        slowAfterMs: 100,
        async claim(limit, slow) {
          // The slow jobs' peers (payload 'slow') are left for later, as the webhooks skip a slow receiver.
          skipped.push(slow.length);
          const jobs = await sql<TestJob>`
            WITH due AS (
              SELECT id FROM test_jobs WHERE batch = 'slow' AND status = 'pending' AND locked_until IS NULL
                AND (payload <> 'slow' OR ${slow.length} = 0)
              ORDER BY id LIMIT ${limit} FOR UPDATE SKIP LOCKED)
            UPDATE test_jobs j SET locked_until = now() + interval '60 seconds', attempts = j.attempts + 1
            FROM due WHERE j.id = due.id RETURNING j.id, j.batch, j.payload, j.attempts`.execute(db());
          claimed += jobs.rows.length;
          unrecordedMost = Math.max(unrecordedMost, claimed - recorded);
          return jobs.rows;
        },
        async perform(job) {
          await sleep(job.payload === 'slow' ? 1500 : 10);
          return 'ok';
        },
        async record(outcomes) {
          await recordJobs(outcomes);
          recorded += outcomes.length;
        },
      }),
    );
    const started = Date.now();
    let fastDoneMs = 0;
    try {
      await enqueue('slow', 4, () => 'slow'); // two claimed, turn slow; the other two wait
      await sleep(300);
      await enqueue('slow', 10, () => 'fast');
      await until(
        () => rowsOf('slow'),
        (r) => r.filter((row) => row.status === 'done').length >= 10,
        'the fast jobs beside the slow ones',
      );
      fastDoneMs = Date.now() - started;
    } finally {
      await runner.stop();
    }
    expect(fastDoneMs).toBeLessThan(1400); // while the first slow jobs were still in flight
    expect(skipped.some((n) => n > 0)).toBe(true);
    expect(unrecordedMost).toBeLessThanOrEqual(4);
    // Stopped: the two slow jobs in flight finished and were recorded; the other two were never claimed.
    expect((await rowsOf('slow')).map((r) => `${r.status} ${r.attempts}`)).toEqual([
      ...Array(2).fill('done 1'),
      ...Array(2).fill('pending 0'),
      ...Array(10).fill('done 1'),
    ]);
  });
});

describe('job runner: periodic tasks', () => {
  const startTask = (task: Parameters<JobRunner['every']>[0], registry = new Registry(), logger = silent) => {
    const runner = createJobRunner({ logger, registry });
    runner.every(task);
    runner.start();
    return runner;
  };

  it('runs at start, then again after each wait; a slow run never overlaps the next', async () => {
    let running = 0;
    let most = 0;
    let runs = 0;
    const registry = new Registry();
    const runner = startTask(
      {
        name: 'overlap',
        everyMs: 5,
        async run() {
          runs++;
          running++;
          most = Math.max(most, running);
          await sleep(30); // six times the period
          running--;
        },
      },
      registry,
    );
    await sleep(200);
    await runner.stop();
    expect(runs).toBeGreaterThanOrEqual(3);
    expect(most).toBe(1);
    expect(await metric(registry, 'emporium_jobs_succeeded_total', 'overlap')).toBe(runs);
  });

  it('stop aborts the run in progress, waits for it, and no run follows', async () => {
    let runs = 0;
    let sawAbort = false;
    let finished = false;
    const runner = startTask({
      name: 'aborted',
      everyMs: 1,
      async run(signal) {
        runs++;
        while (!signal.aborted) await sleep(2);
        sawAbort = true;
        await sleep(20);
        finished = true;
      },
    });
    await sleep(10);
    await runner.stop();
    expect(sawAbort).toBe(true);
    expect(finished).toBe(true);
    await sleep(50);
    expect(runs).toBe(1);
  });

  it('a failing run is logged and counted and the schedule goes on; waits stay within the jitter', async () => {
    const errors: { msg: string; task?: string }[] = [];
    const logger = pino({ level: 'error' }, { write: (line: string) => errors.push(JSON.parse(line)) });
    const starts: number[] = [];
    const registry = new Registry();
    const runner = startTask(
      {
        name: 'flaky',
        everyMs: 40,
        jitter: 0.5,
        async run() {
          starts.push(Date.now());
          throw new Error('boom');
        },
      },
      registry,
      logger,
    );
    await sleep(300);
    await runner.stop();
    expect(starts.length).toBeGreaterThanOrEqual(3);
    expect(errors.slice(0, 2).map((e) => [e.msg, e.task])).toEqual([
      ['periodic task failed', 'flaky'],
      ['periodic task failed', 'flaky'],
    ]);
    expect(await metric(registry, 'emporium_jobs_failed_total', 'flaky')).toBe(starts.length);
    for (let i = 1; i < starts.length; i++) {
      const gap = (starts[i] ?? 0) - (starts[i - 1] ?? 0);
      expect(gap).toBeGreaterThanOrEqual(19);
      expect(gap).toBeLessThan(500);
    }
  });

  it('runAtStart false: the first run waits a period', async () => {
    let runs = 0;
    const runner = startTask({
      name: 'later',
      everyMs: 100,
      jitter: 0,
      runAtStart: false,
      async run() {
        runs++;
      },
    });
    await sleep(50);
    expect(runs).toBe(0);
    await sleep(100);
    expect(runs).toBe(1);
    await runner.stop();
  });

  it('a retention task deletes what is older than its days at start, without the statement timeout, and logs it', async () => {
    await sql`
      INSERT INTO test_jobs (batch, status, done_at)
      SELECT 'old', 'done', now() - make_interval(days => d) FROM unnest(ARRAY[40, 31, 29, 1]) AS d`.execute(
      db(),
    );
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
    let timeoutSeen: string | undefined;
    const runner = startTask(
      retentionTask('test_retention', { db: db(), days: 30, logger }, async (tx, before) => {
        const timeout = await sql<{ statement_timeout: string }>`SHOW statement_timeout`.execute(tx);
        timeoutSeen = timeout.rows[0]?.statement_timeout;
        const result = await sql`DELETE FROM test_jobs WHERE batch = 'old' AND done_at < ${before}`.execute(
          tx,
        );
        return { test_jobs: Number(result.numAffectedRows) };
      }),
    );
    try {
      await until(
        async () => lines.length,
        (n) => n > 0,
        'the retention log line',
      );
    } finally {
      await runner.stop();
    }
    expect(lines[0]).toMatchObject({ msg: 'old rows pruned', task: 'test_retention', test_jobs: 2 });
    expect((await rowsOf('old')).length).toBe(2);
    expect(timeoutSeen).toBe('0'); // in a transaction without the statement timeout: a large log may take long
  });

  it('kinds and tasks are added before the runner starts', () => {
    const runner = createJobRunner({ logger: silent });
    runner.start();
    expect(() => runner.every({ name: 'late', everyMs: 1000, run: async () => {} })).toThrow(
      /before the runner starts/,
    );
  });
});
