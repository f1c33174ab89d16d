import type pg from 'pg';
import type { Logger } from 'pino';
import type { Db } from '../../platform/db/database.js';
import { createWakeup } from '../../platform/wakeup.js';
import * as repo from './push.repository.js';
import type { PushProvider, PushResult } from './push-providers.js';

/** Seconds before the 2nd, 3rd and 4th attempts; a 4th failure is final. */
export const PUSH_RETRY_SCHEDULE = [30, 120, 600] as const;

/**
 * Seconds until the next attempt after attempt number `attempt` failed in a retryable way (pure), or
 * undefined when the schedule is spent. ±10 % jitter from `random`; a longer Retry-After wins.
 */
export function pushRetryDelay(
  attempt: number,
  schedule: readonly number[],
  retryAfterSeconds?: number,
  random: number = Math.random(),
): number | undefined {
  const base = schedule[attempt - 1];
  if (base === undefined) return undefined;
  return Math.max(base * (0.9 + 0.2 * random), retryAfterSeconds ?? 0);
}

export interface PushWorkerOptions {
  db: Db;
  provider: PushProvider;
  logger: Logger;
  /** A pool to take the LISTEN connection from; without one the worker polls (and can be poked). */
  pool?: pg.Pool;
  /** Sends in flight at most. Default 32. */
  concurrency?: number;
  /** Safety-net poll when no notification arrives (ms). Default 5 s. */
  pollMs?: number;
  /** A claimed notification is claimed again after this long (a crashed worker). Default 60 s. */
  leaseMs?: number;
  retrySchedule?: readonly number[];
  /** Sent and failed notifications are deleted after this many days. Default 30. */
  retentionDays?: number;
}

interface Finished {
  push: repo.ClaimedPush;
  result: PushResult;
}

/**
 * The push worker: claims due notifications (SKIP LOCKED + lease), hands them to the provider
 * outside any transaction with at most `concurrency` in flight, and records the outcomes in batches;
 * a dead token deletes its device. Woken by LISTEN/NOTIFY at each commit that queued a push, by its
 * own finished sends, and by a slow poll as a safety net; a wake-up while it is busy is not lost
 * (platform/wakeup.ts).
 */
export function createPushWorker(options: PushWorkerOptions) {
  const { db, provider, logger } = options;
  const concurrency = options.concurrency ?? 32;
  const pollMs = options.pollMs ?? 5_000;
  const leaseMs = options.leaseMs ?? 60_000;
  const schedule = options.retrySchedule ?? PUSH_RETRY_SCHEDULE;
  let running = false;
  let inFlight = 0;
  let finished: Finished[] = [];
  let loop: Promise<void> | undefined;
  let lastPrune = 0;
  // A notification or a finished send that finds the loop awake makes its next sleep return at once.
  const wakeup = createWakeup({
    pool: options.pool,
    channel: repo.PUSH_CHANNEL,
    name: 'push worker',
    logger,
  });
  const { poke } = wakeup;

  async function send(push: repo.ClaimedPush) {
    let result: PushResult;
    try {
      result = await provider.send({
        token: push.token,
        platform: push.platform,
        title: push.title,
        body: push.body,
        data: push.data,
      });
    } catch (error) {
      result = { ok: false, retry: true, invalidToken: false, error: (error as Error).message };
    }
    finished.push({ push, result });
    inFlight--;
    poke();
  }

  async function record(batch: Finished[]) {
    const outcomes: repo.PushOutcome[] = [];
    const dead: { id: string; token: string; before: Date }[] = [];
    for (const { push, result } of batch) {
      if (result.ok) {
        outcomes.push({ id: push.id, status: 'sent', next: null, error: null });
        continue;
      }
      const delay = result.retry
        ? pushRetryDelay(push.attempts, schedule, result.retryAfterSeconds)
        : undefined;
      if (delay !== undefined) {
        outcomes.push({
          id: push.id,
          status: 'pending',
          next: new Date(Date.now() + delay * 1000),
          error: result.error,
        });
      } else {
        outcomes.push({ id: push.id, status: 'failed', next: null, error: result.error });
      }
      if (result.invalidToken) dead.push({ id: push.device_id, token: push.token, before: push.claimed_at });
      logger.warn(
        {
          pushId: push.id,
          storeId: push.store_id,
          deviceId: push.device_id,
          attempt: push.attempts,
          retry: delay !== undefined,
          invalidToken: result.invalidToken,
          error: result.error,
        },
        'push notification not delivered',
      );
    }
    const deleted = await db.transaction().execute(async (tx) => {
      await repo.recordPushOutcomes(tx, outcomes);
      return repo.deleteDeadDevices(tx, dead);
    });
    if (deleted) logger.info({ count: deleted }, 'devices with dead push tokens forgotten');
  }

  async function flush() {
    if (finished.length === 0) return;
    const batch = finished;
    finished = [];
    try {
      await record(batch);
    } catch (error) {
      // The notifications stay claimed until their lease ends, then are sent again: at least once.
      logger.error({ err: error, count: batch.length }, 'could not record push attempts');
    }
  }

  async function prune() {
    const now = Date.now();
    if (now - lastPrune < 3600_000) return;
    lastPrune = now;
    const removed = await repo.prunePushes(db, new Date(now - (options.retentionDays ?? 30) * 86_400_000));
    if (removed) logger.info({ removed }, 'push notification log pruned');
  }

  /** One round: record what finished, claim what is due; true when there may be more to do at once. */
  async function cycle(): Promise<boolean> {
    await flush();
    if (running) await wakeup.listen();
    let claimed = 0;
    const room = concurrency - inFlight;
    if (room > 0 && running) {
      const due = await repo.claimDuePushes(db, room, leaseMs);
      claimed = due.length;
      for (const push of due) {
        inFlight++;
        void send(push);
      }
    }
    await prune();
    return claimed > 0 || finished.length > 0;
  }

  async function run() {
    while (running) {
      let busy = false;
      try {
        busy = await cycle();
      } catch (error) {
        logger.error({ err: error }, 'push worker cycle failed; retrying');
        await wakeup.sleep(1000);
        continue;
      }
      if (busy) continue;
      if (inFlight > 0) {
        await wakeup.sleep(pollMs); // until a send finishes, or a notification
        continue;
      }
      const dueIn = await repo.secondsUntilNextPush(db).catch(() => null);
      const wait = dueIn === null ? pollMs : Math.min(pollMs, Math.max(0, dueIn * 1000));
      if (wait > 0) await wakeup.sleep(wait);
    }
  }

  return {
    start() {
      if (running) return;
      running = true;
      loop = run();
    },
    /** Stops claiming, lets in-flight sends finish, records them, releases the LISTEN connection. */
    async stop() {
      if (!running) return;
      running = false;
      poke();
      await loop;
      while (inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 20));
      await flush();
      await wakeup.close();
    },
    /** Wakes the loop now (after a commit in this process, or in tests). */
    poke,
  };
}

export type PushWorker = ReturnType<typeof createPushWorker>;
