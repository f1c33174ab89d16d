import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { startPeriodicTask } from './periodic.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const silent = pino({ level: 'silent' });

describe('startPeriodicTask', () => {
  it('runs at start, then again after each wait; a slow run never overlaps the next', async () => {
    let running = 0;
    let most = 0;
    let runs = 0;
    const task = startPeriodicTask({
      name: 'test',
      everyMs: 5,
      logger: silent,
      async run() {
        runs++;
        running++;
        most = Math.max(most, running);
        await sleep(30); // six times the period
        running--;
      },
    });
    await sleep(200);
    await task.stop();
    expect(runs).toBeGreaterThanOrEqual(3);
    expect(most).toBe(1);
  });

  it('stop aborts the run in progress, waits for it, and no run follows', async () => {
    let runs = 0;
    let sawAbort = false;
    let finished = false;
    const task = startPeriodicTask({
      name: 'test',
      everyMs: 1,
      logger: silent,
      async run(signal) {
        runs++;
        while (!signal.aborted) await sleep(2);
        sawAbort = true;
        await sleep(20);
        finished = true;
      },
    });
    await sleep(10);
    await task.stop();
    expect(sawAbort).toBe(true);
    expect(finished).toBe(true);
    await sleep(20);
    expect(runs).toBe(1);
  });

  it('a failing run is logged and the schedule goes on; jitter keeps waits within ± the fraction', async () => {
    const errors: string[] = [];
    const logger = pino(
      { level: 'error' },
      { write: (line: string) => errors.push((JSON.parse(line) as { msg: string }).msg) },
    );
    const starts: number[] = [];
    const task = startPeriodicTask({
      name: 'flaky task',
      everyMs: 40,
      jitter: 0.5,
      logger,
      async run() {
        starts.push(Date.now());
        throw new Error('boom');
      },
    });
    await sleep(300);
    await task.stop();
    expect(starts.length).toBeGreaterThanOrEqual(3);
    expect(errors.slice(0, 2)).toEqual(['flaky task failed', 'flaky task failed']);
    for (let i = 1; i < starts.length; i++) {
      const gap = (starts[i] ?? 0) - (starts[i - 1] ?? 0);
      expect(gap).toBeGreaterThanOrEqual(19);
      expect(gap).toBeLessThan(500);
    }
  });

  it('runAtStart false: the first run waits a period', async () => {
    let runs = 0;
    const task = startPeriodicTask({
      name: 'test',
      everyMs: 100,
      jitter: 0,
      runAtStart: false,
      logger: silent,
      async run() {
        runs++;
      },
    });
    await sleep(50);
    expect(runs).toBe(0);
    await sleep(100);
    expect(runs).toBe(1);
    await task.stop();
  });
});
