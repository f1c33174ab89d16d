import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { loggerOptions } from '../../platform/log.js';
import { orderPushContent } from './push.js';
import { createLogPushProvider, maskToken } from './push-providers.js';
import { PUSH_RETRY_SCHEDULE, pushRetryDelay } from './push-worker.js';

describe('orderPushContent', () => {
  it.each([
    [
      { kind: 'paid' as const, orderNumber: '1001' },
      {
        title: 'Order #1001 is confirmed',
        body: 'We have received your payment. We will let you know when it ships.',
        data: { type: 'order_update', kind: 'paid', orderNumber: '1001' },
      },
    ],
    [
      { kind: 'cancelled' as const, orderNumber: '#1002' },
      {
        title: 'Order #1002 was cancelled',
        body: 'Your order has been cancelled. Contact the store if you have any questions.',
        data: { type: 'order_update', kind: 'cancelled', orderNumber: '1002' },
      },
    ],
    [
      {
        kind: 'fulfilled' as const,
        orderNumber: '1003',
        tracking: {
          carrier: 'UPS',
          trackingNumber: '1Z999AA10123456784',
          trackingUrl: 'https://ups.example/t/1Z',
        },
      },
      {
        title: 'Order #1003 is on its way',
        body: 'Shipped with UPS, tracking number 1Z999AA10123456784.',
        data: {
          type: 'order_update',
          kind: 'fulfilled',
          orderNumber: '1003',
          carrier: 'UPS',
          trackingNumber: '1Z999AA10123456784',
          trackingUrl: 'https://ups.example/t/1Z',
        },
      },
    ],
    [
      { kind: 'fulfilled' as const, orderNumber: '1004', tracking: { carrier: 'DHL', trackingNumber: ' ' } },
      {
        title: 'Order #1004 is on its way',
        body: 'Shipped with DHL.',
        data: { type: 'order_update', kind: 'fulfilled', orderNumber: '1004', carrier: 'DHL' },
      },
    ],
    [
      { kind: 'fulfilled' as const, orderNumber: '1005', tracking: null },
      {
        title: 'Order #1005 is on its way',
        body: 'Your order has shipped.',
        data: { type: 'order_update', kind: 'fulfilled', orderNumber: '1005' },
      },
    ],
    [
      {
        kind: 'refunded' as const,
        orderNumber: '1006',
        refund: { amount: '12.50', currency: 'EUR', full: false },
      },
      {
        title: 'Order #1006 was partly refunded',
        body: 'A refund of 12.50 EUR is on its way to you.',
        data: {
          type: 'order_update',
          kind: 'refunded',
          orderNumber: '1006',
          amount: '12.50',
          currency: 'EUR',
        },
      },
    ],
    [
      {
        kind: 'refunded' as const,
        orderNumber: '#1007',
        refund: { amount: '30.00', currency: 'USD', full: true },
      },
      {
        title: 'Order #1007 was refunded',
        body: 'A refund of 30.00 USD is on its way to you.',
        data: {
          type: 'order_update',
          kind: 'refunded',
          orderNumber: '1007',
          amount: '30.00',
          currency: 'USD',
        },
      },
    ],
  ])('%o', (input, expected) => {
    const content = orderPushContent(input);
    expect(content).toEqual(expected);
    for (const value of Object.values(content.data)) expect(typeof value).toBe('string');
  });
});

describe('pushRetryDelay', () => {
  it('waits 30 s, 2 min, 10 min (±10 %), then gives up', () => {
    expect(PUSH_RETRY_SCHEDULE).toEqual([30, 120, 600]);
    expect(pushRetryDelay(1, PUSH_RETRY_SCHEDULE, undefined, 0.5)).toBe(30);
    expect(pushRetryDelay(2, PUSH_RETRY_SCHEDULE, undefined, 0.5)).toBe(120);
    expect(pushRetryDelay(3, PUSH_RETRY_SCHEDULE, undefined, 0.5)).toBe(600);
    expect(pushRetryDelay(4, PUSH_RETRY_SCHEDULE, undefined, 0.5)).toBeUndefined();
    expect(pushRetryDelay(1, PUSH_RETRY_SCHEDULE, undefined, 0)).toBe(27);
    expect(pushRetryDelay(1, PUSH_RETRY_SCHEDULE, undefined, 0.999_999)).toBeCloseTo(33);
  });

  it('honours a longer Retry-After, never a shorter one', () => {
    expect(pushRetryDelay(1, PUSH_RETRY_SCHEDULE, 90, 0.5)).toBe(90);
    expect(pushRetryDelay(2, PUSH_RETRY_SCHEDULE, 5, 0.5)).toBe(120);
    expect(pushRetryDelay(4, PUSH_RETRY_SCHEDULE, 5, 0.5)).toBeUndefined();
  });
});

describe('the log provider', () => {
  it('masks device tokens', () => {
    expect(maskToken('fGc1:APA91bHqL0ngT0kenValue-xyz9')).toBe('fGc1:A…xyz9');
    expect(maskToken('short-token')).toBe('…en');
  });

  it('writes the notification at info, never the whole token', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const logger = pino(loggerOptions('info'), sink);
    const token = 'fGc1:APA91bHqL0ngT0kenValue-secret-xyz9';
    const result = await createLogPushProvider(logger).send({
      token,
      platform: 'ios',
      title: 'Order #1001 is confirmed',
      body: 'We have received your payment.',
      data: { orderNumber: '1001', kind: 'paid' },
    });
    expect(result).toEqual({ ok: true });
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0] ?? '');
    expect(line).toMatchObject({
      level: 'info',
      push: {
        device: 'fGc1:A…xyz9',
        platform: 'ios',
        title: 'Order #1001 is confirmed',
        data: { orderNumber: '1001', kind: 'paid' },
      },
    });
    expect(lines[0]).not.toContain('secret');
  });
});
