import { describe, expect, it } from 'vitest';
import { type ConnectionState, headBytes, phaseOf, shedOrder, tooSlowBody } from './connection-states.js';

const RULE = { bytesPerSecond: 240, graceMs: 5000 };

/** A connection whose latest request's headers were read at `bodySince`, after `bytesAtStart` bytes. */
function connection(fields: Partial<ConnectionState> & { bytesRead?: number; complete?: boolean }) {
  const { bytesRead = 0, complete = false, ...rest } = fields;
  return {
    socket: { bytesRead },
    since: 0,
    bytesAtStart: 0,
    request: { complete },
    expectsBody: true,
    bodySince: 0,
    bodyBytesAtStart: 0,
    responded: false,
    ...rest,
  } satisfies ConnectionState;
}

describe('phaseOf', () => {
  it.each([
    ['new, nothing read', connection({ request: undefined }), 'headers'],
    ['body announced, not complete', connection({}), 'body'],
    ['body complete, being answered', connection({ complete: true }), 'responding'],
    ['no body, being answered', connection({ expectsBody: false }), 'responding'],
    ['answered early, body still arriving', connection({ responded: true }), 'body'],
    [
      'answered, nothing since',
      connection({ complete: true, responded: true, bytesAtStart: 90, bytesRead: 90 }),
      'idle',
    ],
    [
      'answered, next request begun',
      connection({ complete: true, responded: true, bytesAtStart: 90, bytesRead: 95 }),
      'headers',
    ],
  ])('%s: %s', (_case, c, phase) => {
    expect(phaseOf(c)).toBe(phase);
  });
});

describe('tooSlowBody (240 bytes/s after 5 s)', () => {
  it.each([
    ['stalled, within the grace', 4999, 1, false],
    ['stalled, past the grace', 5000, 1, true],
    ['at the minimum exactly', 10_000, 2400, false],
    ['just below it', 10_000, 2399, true],
    ['fast, then stalled, average still above', 6000, 1500, false],
    ['fast, then stalled, average fallen below', 7000, 1500, true],
  ])('%s: %s ms, %s bytes → %s', (_case, now, received, slow) => {
    expect(tooSlowBody(connection({ bodyBytesAtStart: 100, bytesRead: 100 + received }), RULE, now)).toBe(
      slow,
    );
  });

  it('a complete body, or one being answered with no body, is never too slow', () => {
    expect(tooSlowBody(connection({ complete: true }), RULE, 60_000)).toBe(false);
    expect(tooSlowBody(connection({ expectsBody: false }), RULE, 60_000)).toBe(false);
  });
});

describe('shedOrder', () => {
  const idleOld = connection({ complete: true, responded: true, since: 100 });
  const idleNew = connection({ complete: true, responded: true, since: 900 });
  const stalledOld = connection({ bodySince: 0, bytesRead: 1 }); // 240 behind at 1 s
  const stalledNew = connection({ bodySince: 800, bytesRead: 1 }); // 47 behind
  const fastUpload = connection({ bodySince: 0, bytesRead: 50_000 });
  const answering = connection({ complete: true });
  const silentNew = connection({ request: undefined, since: 999 }); // 0.24 behind
  const all = [fastUpload, stalledNew, answering, idleNew, silentNew, stalledOld, idleOld];

  it('idle first (oldest first), then the furthest behind the minimum rate', () => {
    expect(shedOrder(all, RULE, 1000, 10)).toEqual([idleOld, idleNew, stalledOld, stalledNew, silentNew]);
    expect(shedOrder(all, RULE, 1000, 3)).toEqual([idleOld, idleNew, stalledOld]);
    expect(shedOrder(all, RULE, 1000, 1)).toEqual([idleOld]);
  });

  it('never a request being answered or arriving at least at the minimum rate', () => {
    expect(shedOrder([fastUpload, answering], RULE, 1000, 10)).toEqual([]);
  });
});

it('headBytes counts the request line and headers as sent', () => {
  const head = 'POST /api/x HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\n';
  expect(
    headBytes({
      method: 'POST',
      url: '/api/x',
      httpVersion: '1.1',
      rawHeaders: ['Host', 'a', 'Content-Length', '5'],
    }),
  ).toBe(Buffer.byteLength(head));
});
