import { describe, expect, it } from 'vitest';
import { MAIL_RETRY_SCHEDULE_MS } from './kinds.js';
import { isTransientSendFailure, nextMailStep, retryDelayMs, type SendFailure } from './mail-retry.js';

describe('isTransientSendFailure', () => {
  it.each<[SendFailure, boolean, string]>([
    [{ code: 'ECONNECTION' }, true, 'the relay refused the connection'],
    [{ code: 'ETIMEDOUT' }, true, 'the relay did not answer in time'],
    [{ code: 'ESOCKET' }, true, 'the connection broke'],
    [
      { code: 'EAUTH', responseCode: 535 },
      true,
      "the relay refused our login: SMTP_URL is the operator's to fix",
    ],
    [{ code: 'EENVELOPE', responseCode: 451 }, true, 'a 4xx answer to RCPT TO'],
    [{ code: 'EMESSAGE', responseCode: 421 }, true, 'a 4xx answer to DATA'],
    [{ code: 'EENVELOPE', responseCode: 550 }, false, 'a 5xx answer: the mailbox does not exist'],
    [{ code: 'EMESSAGE', responseCode: 554 }, false, 'a 5xx answer to DATA'],
    [{ code: 'EENVELOPE' }, false, 'no usable recipient: nothing a retry changes'],
    [{}, true, 'an error of unknown origin'],
  ])('%j → %s (%s)', (failure, transient) => {
    expect(isTransientSendFailure(failure)).toBe(transient);
  });
});

describe('retryDelayMs', () => {
  it('follows the contract: 1 min, 5 min, 30 min, 2 h, 12 h, then nothing', () => {
    expect([1, 2, 3, 4, 5, 6].map((attempt) => retryDelayMs(attempt, MAIL_RETRY_SCHEDULE_MS, 0.5))).toEqual([
      60_000,
      300_000,
      1_800_000,
      7_200_000,
      43_200_000,
      undefined,
    ]);
  });

  it.each([
    [0, 54_000],
    [0.5, 60_000],
    [0.999999, 66_000],
  ])('jitters within ± 10 %% (random %s → %s ms)', (random, delay) => {
    expect(retryDelayMs(1, MAIL_RETRY_SCHEDULE_MS, random)).toBe(delay);
  });
});

describe('nextMailStep', () => {
  const schedule = [100, 200];
  it.each([
    [{ sent: true } as const, 1, { status: 'sent' }],
    [{ sent: true } as const, 3, { status: 'sent' }],
    [{ sent: false, transient: true } as const, 1, { status: 'pending', delayMs: 100 }],
    [{ sent: false, transient: true } as const, 2, { status: 'pending', delayMs: 200 }],
    [{ sent: false, transient: true } as const, 3, { status: 'failed' }],
    [{ sent: false, transient: false } as const, 1, { status: 'failed' }],
  ])('%j after attempt %i → %j', (outcome, attempt, step) => {
    expect(nextMailStep(outcome, attempt, schedule, 0.5)).toEqual(step);
  });
});
