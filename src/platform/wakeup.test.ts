import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createWakeup } from './wakeup.js';

const logger = pino({ level: 'silent' });
const timed = async (work: () => Promise<boolean>) => {
  const start = Date.now();
  const timedOut = await work();
  return { timedOut, ms: Date.now() - start };
};

describe('createWakeup (without a pool: pokes and the poll only)', () => {
  it('a sleep ends when the time runs out (the safety-net poll) and says so', async () => {
    const wakeup = createWakeup({ channel: 'c', name: 'test', logger });
    const { timedOut, ms } = await timed(() => wakeup.sleep(30));
    expect(timedOut).toBe(true);
    expect(ms).toBeGreaterThanOrEqual(25);
  });

  it('a poke ends a sleep at once', async () => {
    const wakeup = createWakeup({ channel: 'c', name: 'test', logger });
    setTimeout(wakeup.poke, 10);
    const { timedOut, ms } = await timed(() => wakeup.sleep(5000));
    expect(timedOut).toBe(false);
    expect(ms).toBeLessThan(1000);
  });

  it('a poke while the loop is awake is not lost: the next sleep returns at once, the one after waits', async () => {
    const wakeup = createWakeup({ channel: 'c', name: 'test', logger });
    wakeup.poke(); // the loop is busy, not sleeping
    const next = await timed(() => wakeup.sleep(5000));
    expect(next).toMatchObject({ timedOut: false });
    expect(next.ms).toBeLessThan(50);
    const after = await timed(() => wakeup.sleep(30));
    expect(after.timedOut).toBe(true);
  });

  it('without a pool, listen does nothing and the loop is not listening', async () => {
    const wakeup = createWakeup({ channel: 'c', name: 'test', logger });
    await wakeup.listen();
    expect(wakeup.listening).toBe(false);
    await wakeup.close();
  });
});
