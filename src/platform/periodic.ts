import type { Logger } from 'pino';

export interface PeriodicTaskOptions {
  /** For the log: "<name> failed". */
  name: string;
  /** Time between the end of one run and the start of the next (ms), before jitter. */
  everyMs: number;
  /** ± this fraction of `everyMs` on each wait, so that several workers drift apart. Default 0.1. */
  jitter?: number;
  /** Also run once right after starting (default true). */
  runAtStart?: boolean;
  logger: Logger;
  /** One run; `signal` aborts when the task is stopped (a long run should stop between steps). */
  run(signal: AbortSignal): Promise<void>;
}

export interface PeriodicTask {
  /** No further run; aborts the run in progress and waits for it to return. */
  stop(): Promise<void>;
}

/**
 * A task run on a schedule inside a long-lived process (the background worker): once at start, then
 * every `everyMs` ± jitter, measured from the end of the previous run, so a run never overlaps
 * itself. A failing run is logged and the schedule goes on. Runs in several processes at once are
 * the task's own concern (its statements must be safe to run side by side).
 */
export function startPeriodicTask(options: PeriodicTaskOptions): PeriodicTask {
  const jitter = options.jitter ?? 0.1;
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> | undefined;

  const delay = () => Math.max(0, options.everyMs * (1 + jitter * (2 * Math.random() - 1)));

  function schedule(ms: number) {
    if (abort.signal.aborted) return;
    timer = setTimeout(runOnce, ms);
    timer.unref(); // a forgotten task never keeps the process alive
  }

  function runOnce() {
    timer = undefined;
    current = (async () => {
      try {
        await options.run(abort.signal);
      } catch (error) {
        if (!abort.signal.aborted) options.logger.error({ err: error }, `${options.name} failed`);
      }
    })().finally(() => {
      current = undefined;
      schedule(delay());
    });
  }

  schedule(options.runAtStart === false ? delay() : 0);
  return {
    async stop() {
      abort.abort();
      clearTimeout(timer);
      timer = undefined;
      await current;
    },
  };
}
