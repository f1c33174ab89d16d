import { describe, expect, it } from 'vitest';
import { Semaphore } from './semaphore.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('Semaphore', () => {
  it('never lets more than `size` run at once, and runs every job in arrival order', async () => {
    const semaphore = new Semaphore(3);
    let running = 0;
    let most = 0;
    const started: number[] = [];
    const jobs = Array.from({ length: 20 }, (_, n) =>
      semaphore.run(async () => {
        started.push(n);
        running++;
        most = Math.max(most, running);
        for (let i = 0; i < (n % 4) + 1; i++) await tick();
        running--;
        return n * 2;
      }),
    );
    expect(await Promise.all(jobs)).toEqual(Array.from({ length: 20 }, (_, n) => n * 2));
    expect(most).toBe(3);
    expect(started).toEqual(Array.from({ length: 20 }, (_, n) => n));
    expect(semaphore.load).toEqual({ active: 0, waiting: 0 });
  });

  it('frees the place of a job that throws', async () => {
    const semaphore = new Semaphore(1);
    await expect(semaphore.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await semaphore.run(async () => 'next')).toBe('next');
    expect(semaphore.load).toEqual({ active: 0, waiting: 0 });
  });

  it('reports who holds and who waits', async () => {
    const semaphore = new Semaphore(1);
    let finish: () => void = () => {};
    const first = semaphore.run(() => new Promise<void>((resolve) => (finish = resolve)));
    const second = semaphore.run(async () => {});
    await tick();
    expect(semaphore.load).toEqual({ active: 1, waiting: 1 });
    finish();
    await Promise.all([first, second]);
    expect(semaphore.load).toEqual({ active: 0, waiting: 0 });
  });

  it('refuses a size that is not a positive integer', () => {
    expect(() => new Semaphore(0)).toThrow(RangeError);
    expect(() => new Semaphore(1.5)).toThrow(RangeError);
  });
});
