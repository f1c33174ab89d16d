import { describe, expect, it } from 'vitest';
import { nextStep, parseRetryAfter } from './retry.js';

const schedule = [60, 300, 1800];

describe('nextStep', () => {
  it.each([
    [{ status: 200 }, 1, { kind: 'succeeded' }],
    [{ status: 204 }, 3, { kind: 'succeeded' }],
    [{ status: 400 }, 1, { kind: 'failed' }],
    [{ status: 404 }, 1, { kind: 'failed' }],
    [{ status: 301 }, 1, { kind: 'failed' }],
    [{ status: 410 }, 1, { kind: 'failed', disable: 'the endpoint answered 410 Gone' }],
    [{ status: 500 }, 1, { kind: 'retry', delaySeconds: 60 }],
    [{ status: 503 }, 2, { kind: 'retry', delaySeconds: 300 }],
    [{ status: 408 }, 1, { kind: 'retry', delaySeconds: 60 }],
    [{ status: 429 }, 1, { kind: 'retry', delaySeconds: 60 }],
    [{}, 3, { kind: 'retry', delaySeconds: 1800 }],
    [{ status: 500 }, 4, { kind: 'failed' }],
    [{}, 4, { kind: 'failed' }],
  ])('%j on attempt %i → %j (no jitter)', (result, attempt, expected) => {
    expect(nextStep(result, attempt, schedule, 0.5)).toEqual(expected);
  });

  it('jitters by at most ±10 %', () => {
    expect(nextStep({ status: 500 }, 1, schedule, 0)).toEqual({ kind: 'retry', delaySeconds: 54 });
    const high = nextStep({ status: 500 }, 1, schedule, 0.999999);
    expect(high.kind === 'retry' && high.delaySeconds).toBeCloseTo(66, 3);
  });

  it('honours a Retry-After longer than the next delay, ignores a shorter one', () => {
    expect(nextStep({ status: 429, retryAfterSeconds: 600 }, 1, schedule, 0.5)).toEqual({
      kind: 'retry',
      delaySeconds: 600,
    });
    expect(nextStep({ status: 503, retryAfterSeconds: 5 }, 1, schedule, 0.5)).toEqual({
      kind: 'retry',
      delaySeconds: 60,
    });
  });
});

describe('parseRetryAfter', () => {
  const now = new Date('2026-11-23T10:00:00.000Z');
  it.each([
    [undefined, undefined],
    ['', undefined],
    ['120', 120],
    [' 7 ', 7],
    ['soon', undefined],
    ['-5', undefined],
    ['Mon, 23 Nov 2026 10:02:00 GMT', 120],
    ['Mon, 23 Nov 2026 09:00:00 GMT', 0],
  ])('%j → %j', (header, seconds) => {
    expect(parseRetryAfter(header, now)).toBe(seconds);
  });
});
