import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError, messageOf, request, setUnauthorizedHandler, withQuery } from './client';

describe('withQuery', () => {
  it.each([
    ['/api/v1/orders', undefined, '/api/v1/orders'],
    ['/api/v1/orders', {}, '/api/v1/orders'],
    ['/api/v1/orders', { page: 2, limit: 20 }, '/api/v1/orders?page=2&limit=20'],
    [
      '/api/v1/orders',
      { status: 'on_hold', q: '', customer_id: null, x: undefined },
      '/api/v1/orders?status=on_hold',
    ],
    ['/api/v1/products', { q: 'tea & cake' }, '/api/v1/products?q=tea+%26+cake'],
    ['/api/v1/products', { active: false }, '/api/v1/products?active=false'],
  ])('%s with %j → %s', (path, query, url) => {
    expect(withQuery(path, query)).toBe(url);
  });
});

describe('ApiError', () => {
  const error = new ApiError(400, 'invalid_request', 'price: must be a decimal amount', [
    { field: '/body/price', message: 'must be a decimal amount' },
    { field: 'body.variants/0/sku', message: 'is taken' },
    { field: '', message: 'the body is too large' },
  ]);

  it.each([
    ['price', 'must be a decimal amount'],
    ['/body/price', 'must be a decimal amount'],
    ['body.price', 'must be a decimal amount'],
    ['variants.0.sku', 'is taken'],
    ['variants/0/sku', 'is taken'],
    ['name', undefined],
  ])('fieldError(%j) = %j', (field, message) => {
    expect(error.fieldError(field)).toBe(message);
  });

  it.each([
    ['variants', 'is taken'],
    ['variants.0', 'is taken'],
    ['price', 'must be a decimal amount'],
    ['pri', undefined],
    ['variant', undefined],
  ])('fieldErrorWithin(%j) = %j', (field, message) => {
    expect(error.fieldErrorWithin(field)).toBe(message);
  });

  it('reads as its message followed by the fields it does not already say', () => {
    expect(error.readable).toBe(
      'price: must be a decimal amount (variants.0.sku: is taken; the body is too large)',
    );
    expect(new ApiError(404, 'not_found', 'order not found').readable).toBe('order not found');
  });

  it.each([
    [
      new ApiError(409, 'conflict', 'order is fulfilled', [{ field: 'status', message: 'x' }]),
      'order is fulfilled (status: x)',
    ],
    [new Error('boom'), 'boom'],
    ['plain text', 'plain text'],
    [42, '42'],
  ])('messageOf(%s) = %j', (thrown, message) => {
    expect(messageOf(thrown)).toBe(message);
  });
});

describe('request', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    setUnauthorizedHandler(undefined);
  });

  const answer = (status: number, body: unknown, headers: Record<string, string> = {}) =>
    vi.fn(
      async (_url: string, _init?: RequestInit) =>
        new Response(body === undefined ? null : JSON.stringify(body), { status, headers }),
    );

  it('sends JSON only when there is a body, with the session cookie', async () => {
    const fetch = answer(200, { data: { id: 'o1' } });
    vi.stubGlobal('fetch', fetch);
    await expect(request('POST', '/api/v1/orders/o1/cancel', { reason: 'x' })).resolves.toEqual({
      data: { id: 'o1' },
    });
    await request('POST', '/api/admin/auth/logout');
    expect(fetch.mock.calls.map(([, init]) => [init?.credentials, init?.headers, init?.body])).toEqual([
      ['same-origin', { accept: 'application/json', 'content-type': 'application/json' }, '{"reason":"x"}'],
      ['same-origin', { accept: 'application/json' }, undefined],
    ]);
  });

  it('answers undefined for 204', async () => {
    vi.stubGlobal('fetch', answer(204, undefined));
    await expect(request('DELETE', '/api/v1/webhooks/w1')).resolves.toBeUndefined();
  });

  it('turns an error body into an ApiError with its code, fields and request id', async () => {
    vi.stubGlobal(
      'fetch',
      answer(
        409,
        {
          error: {
            code: 'insufficient_stock',
            message: 'not enough stock',
            details: [{ field: 'add.0', message: '2 left' }],
          },
        },
        { 'x-request-id': 'req-1' },
      ),
    );
    const error = await request('POST', '/api/v1/orders/o1/edit-items', {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      status: 409,
      code: 'insufficient_stock',
      message: 'not enough stock',
      details: [{ field: 'add.0', message: '2 left' }],
      requestId: 'req-1',
    });
  });

  it('a body that is not the error envelope still gives a readable error', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => new Response('<html>bad gateway</html>', { status: 502, statusText: 'Bad Gateway' })),
    );
    await expect(request('GET', '/api/v1/orders')).rejects.toMatchObject({
      code: 'http_502',
      message: 'The server answered 502 Bad Gateway',
    });
  });

  it('an unreachable server is a network_error; an abort is passed through', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => Promise.reject(new TypeError('fetch failed'))),
    );
    await expect(request('GET', '/api/v1/orders')).rejects.toMatchObject({
      status: 0,
      code: 'network_error',
    });
    const abort = new DOMException('aborted', 'AbortError');
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => Promise.reject(abort)),
    );
    await expect(request('GET', '/api/v1/orders')).rejects.toBe(abort);
  });

  it('401 ends the session unless the caller asked to stay quiet', async () => {
    const ended = vi.fn();
    setUnauthorizedHandler(ended);
    vi.stubGlobal('fetch', answer(401, { error: { code: 'unauthorized', message: 'sign in' } }));
    await expect(
      request('GET', '/api/admin/me', undefined, { quietUnauthorized: true }),
    ).rejects.toMatchObject({
      code: 'unauthorized',
    });
    expect(ended).not.toHaveBeenCalled();
    await expect(request('GET', '/api/v1/orders')).rejects.toMatchObject({ code: 'unauthorized' });
    expect(ended).toHaveBeenCalledOnce();
  });
});
