import type pg from 'pg';
import type { Logger } from 'pino';

export interface WakeupOptions {
  /** The pool to take the LISTEN connection from; without one the loop polls (and can be poked). */
  pool?: pg.Pool;
  /** The NOTIFY channel that announces work; without one the loop polls (and can be poked). */
  channel?: string;
  /** Names the loop in log lines ("push worker LISTEN connection lost…"). */
  name: string;
  logger: Logger;
  /** Called at each notification (with its payload), before the loop is woken. */
  onNotification?: (payload: string) => void;
  /** Called once LISTEN runs (again): what was announced while nobody listened is not known. */
  onListening?: () => void;
}

/**
 * How a background loop waits for work: LISTEN on a channel, a sleep that a notification or a poke
 * cuts short, and a timeout as the safety-net poll. A poke (or notification) that finds the loop
 * awake, between two sleeps, is remembered: the next sleep returns at once. Without that, work
 * announced while the loop was busy would wait for the safety-net poll (a lost wake-up).
 */
export function createWakeup(options: WakeupOptions) {
  const { logger } = options;
  let wake: (() => void) | undefined;
  let poked = false;
  let listener: pg.PoolClient | undefined;

  const poke = () => {
    poked = true;
    const w = wake;
    wake = undefined;
    w?.();
  };

  return {
    poke,

    /**
     * Sleeps up to `ms`, or until poked; returns at once if poked since the last sleep. True when the
     * time ran out (the safety-net poll), false when poked.
     */
    async sleep(ms: number): Promise<boolean> {
      let timedOut = false;
      if (!poked) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(() => {
            wake = undefined;
            timedOut = true;
            resolve();
          }, ms);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      poked = false;
      return timedOut;
    },

    /** Whether a poke (or notification) came since the last sleep: the next sleep returns at once. */
    get pending(): boolean {
      return poked;
    },

    /** Whether LISTEN runs (else the loop depends on its polls and pokes). */
    get listening(): boolean {
      return listener !== undefined;
    },

    /** Starts LISTEN unless it runs (again after a lost connection); failures are logged, not thrown. */
    async listen(): Promise<void> {
      if (listener || !options.pool || !options.channel) return;
      let client: pg.PoolClient | undefined;
      try {
        client = await options.pool.connect();
        const own = client;
        listener = own;
        own.on('notification', (message) => {
          options.onNotification?.(message.payload ?? '');
          poke();
        });
        own.on('error', (error) => {
          if (listener !== own) return; // already given back
          logger.warn({ err: error }, `${options.name} LISTEN connection lost; polling until it is back`);
          listener = undefined;
          own.release(true);
        });
        await own.query(`LISTEN ${options.channel}`);
        options.onListening?.();
      } catch (error) {
        if (client && listener === client) {
          listener = undefined;
          client.release(true);
        }
        logger.warn({ err: error }, `${options.name} could not LISTEN; polling`);
      }
    },

    /** UNLISTEN and gives the connection back. */
    async close(): Promise<void> {
      if (!listener) return;
      const client = listener;
      listener = undefined;
      await client.query(`UNLISTEN ${options.channel}`).catch(() => undefined);
      client.release();
    },
  };
}

export type Wakeup = ReturnType<typeof createWakeup>;
