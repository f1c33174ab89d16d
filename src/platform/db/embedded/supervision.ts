import fs from 'node:fs';
import path from 'node:path';
import { isClusterProcess, processesIn, readPostmasterPid, realPath, sleep } from './processes.js';

/**
 * Keeping the cluster alive under long-running processes (`serve`, `worker`): a timer watches the
 * postmaster; when it died, one recovery at a time starts it again (whichever process takes the start
 * lock first restarts it, the others find it running and follow), with a backoff between attempts and
 * a give-up after about 15 s. Also the clean-up before any start over a dead postmaster: its orphaned
 * backends and its stale postmaster.pid. See docs/decisions.md, "The embedded cluster dies under
 * running processes".
 */

export interface SupervisorEvents {
  /** The postmaster was found dead; recovery starts. */
  onLost(pid: number): void;
  /** A restart attempt failed; the next comes after `retryInMs`. */
  onRetry(error: Error, attempt: number, retryInMs: number): void;
  /** The cluster runs again: restarted by this process, or by another one (`byThisProcess` false). */
  onRecovered(info: { pid: number; port: number; byThisProcess: boolean; ms: number }): void;
  /** Every attempt failed: the cluster cannot run. */
  onGiveUp(error: Error): void;
}

/** The postmaster of the cluster: its pid and the port it listens on. */
export interface Postmaster {
  pid: number;
  port: number;
}

/**
 * Before a start over a postmaster that died: its orphaned backends still hold the old shared memory
 * (PostgreSQL refuses to start beside them) and exit by themselves once they notice; those that do
 * not within a few seconds are killed. A stale postmaster.pid is removed (its pid may have been
 * reused). Runs under the start lock, and never touches a live postmaster or its children.
 */
export async function clearRemains(pgdata: string, log: (line: string) => void): Promise<void> {
  const live = readPostmasterPid(pgdata);
  if (live && isClusterProcess(live.pid, pgdata)) return;
  const orphans = () => processesIn(realPath(pgdata));
  const deadline = Date.now() + 3000;
  let left = orphans();
  while (left.length > 0 && Date.now() < deadline) {
    await sleep(100);
    left = orphans();
  }
  if (left.length > 0) {
    log(
      `stopping ${left.length} orphaned PostgreSQL process(es) of the dead cluster: ${left.map((p) => p.pid).join(', ')}`,
    );
    for (const { pid } of left) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
    const killDeadline = Date.now() + 5000;
    while (orphans().length > 0 && Date.now() < killDeadline) await sleep(50);
  }
  fs.rmSync(path.join(pgdata, 'postmaster.pid'), { force: true });
}

/** Waits before each further restart attempt of a cluster that died: about 15 s in all, then give up. */
const RESTART_BACKOFF_MS = [500, 1000, 2000, 4000, 8000];
/** How often a supervising process looks at the postmaster. */
const WATCH_INTERVAL_MS = 500;

export interface Supervisor {
  /** The postmaster as it runs now: after a recovery, the restarted one. */
  readonly current: Postmaster;
  /** Starts watching (once; never after `stop`). */
  watch(events: SupervisorEvents): void;
  /** Stops watching, and waits for a recovery under way to end. */
  stop(): Promise<void>;
}

export function createSupervisor(options: {
  pgdata: string;
  /** The postmaster this process found or started. */
  running: Postmaster;
  /**
   * Starts the cluster again, on `preferredPort` when it is free, or finds it started by another
   * process (`started` false); under the start lock.
   */
  restart: (preferredPort: number) => Promise<Postmaster & { started: boolean }>;
}): Supervisor {
  const { pgdata, restart } = options;
  let current: Postmaster = { pid: options.running.pid, port: options.running.port };
  // A timer looks at the postmaster; a death starts one recovery at a time.
  let watching: NodeJS.Timeout | undefined;
  let recovering: Promise<void> | undefined;
  let stopped = false;

  /** Starts the cluster again (or finds it started by another process); false once it gave up. */
  const recover = async (events: SupervisorEvents): Promise<boolean> => {
    const lostAt = Date.now();
    const dead = current;
    events.onLost(dead.pid);
    for (let attempt = 0; !stopped; attempt++) {
      try {
        const result = await restart(dead.port);
        current = { pid: result.pid, port: result.port };
        events.onRecovered({ ...current, byThisProcess: result.started, ms: Date.now() - lostAt });
        return true;
      } catch (error) {
        const delay = RESTART_BACKOFF_MS[attempt];
        const failure = error instanceof Error ? error : new Error(String(error));
        if (delay === undefined) {
          events.onGiveUp(failure);
          return false;
        }
        events.onRetry(failure, attempt + 1, delay);
        await sleep(delay);
      }
    }
    return false;
  };

  const watch = (events: SupervisorEvents) => {
    watching = setTimeout(() => {
      if (stopped) return;
      if (isClusterProcess(current.pid, pgdata)) {
        watch(events);
        return;
      }
      recovering = recover(events).then((recovered) => {
        recovering = undefined;
        if (recovered && !stopped) watch(events);
      });
    }, WATCH_INTERVAL_MS);
    watching.unref();
  };

  return {
    get current() {
      return current;
    },
    watch(events) {
      if (watching === undefined && !stopped) watch(events);
    },
    async stop() {
      stopped = true;
      clearTimeout(watching);
      await recovering;
    },
  };
}
