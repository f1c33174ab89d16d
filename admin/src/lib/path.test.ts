import { describe, expect, it } from 'vitest';
import { isCurrent, matchPath } from './path';

describe('matchPath', () => {
  it.each([
    ['/', '/', {}],
    ['/orders', '/orders', {}],
    ['/orders', '/orders/', {}],
    ['/orders/:id', '/orders/0193a5b2', { id: '0193a5b2' }],
    ['/orders/:id', '/orders/a%20b', { id: 'a b' }],
    ['/products/:id', '/products/new', { id: 'new' }],
    ['/webhooks/:id/deliveries/:delivery', '/webhooks/w1/deliveries/d2', { id: 'w1', delivery: 'd2' }],
  ])('%s matches %s with %j', (pattern, path, params) => {
    expect(matchPath(pattern, path)).toEqual(params);
  });

  it.each([
    ['/orders', '/'],
    ['/orders', '/products'],
    ['/orders/:id', '/orders'],
    ['/orders/:id', '/orders/1/edit'],
    ['/', '/orders'],
  ])('%s does not match %s', (pattern, path) => {
    expect(matchPath(pattern, path)).toBeUndefined();
  });
});

describe('isCurrent', () => {
  it.each([
    ['/', '/', true],
    ['/', '/orders', false],
    ['/orders', '/orders', true],
    ['/orders', '/orders/123', true],
    ['/orders', '/orders-archive', false],
    ['/products', '/orders', false],
  ])('nav entry %s is current at %s: %s', (to, path, current) => {
    expect(isCurrent(to, path)).toBe(current);
  });
});
