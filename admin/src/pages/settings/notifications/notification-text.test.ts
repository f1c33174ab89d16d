import { describe, expect, it } from 'vitest';
import {
  changedParts,
  errorsByPart,
  kindLabel,
  kindsFor,
  lineOf,
  lineRange,
  NOTIFICATION_KIND_LIST,
  previewBody,
  testSendOutcome,
} from './notification-text';

describe('kindLabel', () => {
  it.each([
    ['order_confirmation', 'Order confirmation'],
    ['shipping_confirmation', 'Shipping confirmation'],
    ['refund_issued', 'Refund issued'],
    ['new_order', 'New order'],
    ['low_stock', 'Low stock'],
    ['some_future_kind', 'Some future kind'],
  ])('%s → %s', (kind, label) => expect(kindLabel(kind)).toBe(label));
});

describe('kindsFor', () => {
  const shuffled = [...NOTIFICATION_KIND_LIST].reverse().map((kind) => ({ kind }));
  it('puts the five buyer e-mails under the customers, in the contract’s order', () => {
    expect(kindsFor(shuffled, 'customer').map((t) => t.kind)).toEqual([
      'order_confirmation',
      'shipping_confirmation',
      'order_cancelled',
      'refund_issued',
      'back_in_stock',
    ]);
  });
  it('puts new_order and low_stock under the store', () => {
    expect(kindsFor(shuffled, 'store').map((t) => t.kind)).toEqual(['new_order', 'low_stock']);
  });
  it('shows a kind it does not know rather than hiding it', () => {
    expect(kindsFor([{ kind: 'later' }], 'customer')).toEqual([{ kind: 'later' }]);
  });
});

describe('errorsByPart', () => {
  it.each([
    [
      'a detail per part, under any spelling of the field',
      'html: line 3: tag "foo" not found',
      [
        { field: '/body/html', message: 'line 3: tag "foo" not found' },
        { field: 'subject', message: 'line 1: unclosed output' },
      ],
      { html: 'line 3: tag "foo" not found', subject: 'line 1: unclosed output' },
    ],
    [
      'two details of one part, joined',
      'bad',
      [
        { field: 'body.text', message: 'line 2: a' },
        { field: 'text', message: 'line 4: b' },
      ],
      { text: 'line 2: a; line 4: b' },
    ],
    [
      'no details: the part the message starts with',
      'text: line 7: undefined filter: shout',
      [],
      { text: 'text: line 7: undefined filter: shout' },
    ],
    ['neither: a general message', 'body must be JSON', [], { other: 'body must be JSON' }],
    [
      'a detail of another field only: the message stays general',
      'bad request',
      [{ field: 'to', message: 'must be an e-mail' }],
      { other: 'bad request' },
    ],
  ])('%s', (_name, message, details, expected) => {
    expect(errorsByPart(message, details)).toEqual(expected);
  });
});

describe('lineOf', () => {
  it.each([
    ['html: line 3: tag "foo" not found', 3],
    ['unexpected token, line:12, col:4', 12],
    ['Line 40 is too long', 40],
    ['no number here', undefined],
    ['online 5', undefined],
  ])('%s → %s', (message, line) => expect(lineOf(message)).toBe(line));
});

describe('lineRange', () => {
  const text = 'one\ntwo\n\nfour';
  it.each([
    [1, [0, 3]],
    [2, [4, 7]],
    [3, [8, 8]],
    [4, [9, 13]],
    [5, undefined],
    [0, undefined],
  ])('line %s → %o', (line, range) => expect(lineRange(text, line)).toEqual(range));
});

describe('changedParts and previewBody', () => {
  const saved = { subject: 'Hi', html: '<p>x</p>', text: 'x' };
  it('sends only the parts that differ from the saved ones', () => {
    expect(changedParts(saved, { ...saved, html: '<p>y</p>' })).toEqual({ html: '<p>y</p>' });
    expect(changedParts(saved, saved)).toEqual({});
  });
  it('previews an emptied part as saved (the API refuses an empty part)', () => {
    expect(previewBody(saved, { subject: '', html: '<p>y</p>', text: 'x' })).toEqual({ html: '<p>y</p>' });
    expect(changedParts(saved, { ...saved, subject: '' })).toEqual({ subject: '' });
  });
});

describe('testSendOutcome', () => {
  it.each([
    [{ to: 'a@b.test', status: 'sent', last_error: null }, 'success', 'Sent to a@b.test.'],
    [
      { to: 'a@b.test', status: 'pending', last_error: null },
      'info',
      'Queued for a@b.test: it leaves with the next run of the mail worker.',
    ],
    [
      { to: 'a@b.test', status: 'failed', last_error: '550 no such user' },
      'warning',
      'Could not be sent to a@b.test: 550 no such user',
    ],
  ])('%o', (record, tone, text) => expect(testSendOutcome(record)).toEqual({ tone, text }));
});
