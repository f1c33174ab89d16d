import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loggerOptions } from '../../src/platform/log.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createStoreWithKey } from '../helpers/factories.js';

/** Every line the app logs at `info` (the default LOG_LEVEL), as production writes it. */
const lines: string[] = [];
let app: TestApp;

beforeAll(async () => {
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(line);
      done();
    },
  });
  app = await buildTestApp({ logger: pino(loggerOptions('info'), stream) });
});
afterAll(() => app.close());

const linesOf = (requestId: string) =>
  lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.reqId === requestId);

describe('request logging at info', () => {
  it('one concise line per request: method, url, status, duration, request id; no secret anywhere', async () => {
    const { key } = await createStoreWithKey(app, { scopes: ['products:read'] });
    const bearer = 'cs_bearer-secret-value-0123456789';
    const cookie = 'emporium_session=cookie-secret-value-0123456789';
    const queryToken = 'query-secret-value-0123456789';
    const requestId = 'log-test-1';
    const res = await app.server.inject({
      method: 'GET',
      url: `/api/v1/products?limit=5&token=${queryToken}&api_key=${queryToken}&page=1`,
      headers: { 'x-api-key': key, authorization: `Bearer ${bearer}`, cookie, 'x-request-id': requestId },
    });
    expect(res.statusCode, res.body).toBe(200);

    const logged = linesOf(requestId);
    expect(logged, JSON.stringify(logged)).toHaveLength(1);
    const [line] = logged;
    expect(line).toMatchObject({
      level: 'info',
      msg: 'request',
      reqId: requestId,
      method: 'GET',
      url: '/api/v1/products?limit=5&token=[redacted]&api_key=[redacted]&page=1',
      statusCode: 200,
    });
    expect(typeof line?.durationMs).toBe('number');
    // Concise: the fields above and pino's own (level, time, pid, hostname), no header dump.
    expect(Object.keys(line ?? {}).sort()).toEqual(
      [
        'durationMs',
        'hostname',
        'level',
        'method',
        'msg',
        'pid',
        'reqId',
        'statusCode',
        'time',
        'url',
      ].sort(),
    );

    const everything = lines.join('\n');
    for (const secret of [key, bearer, 'cookie-secret-value', queryToken])
      expect(everything).not.toContain(secret);
  });

  it('an error answer is one line too, with its status', async () => {
    const requestId = 'log-test-2';
    const res = await app.server.inject({
      method: 'GET',
      url: '/api/v1/products',
      headers: { 'x-api-key': 'sk_not-a-real-key', 'x-request-id': requestId },
    });
    expect(res.statusCode).toBe(401);
    const logged = linesOf(requestId);
    expect(logged, JSON.stringify(logged)).toHaveLength(1);
    expect(logged[0]).toMatchObject({ method: 'GET', url: '/api/v1/products', statusCode: 401 });
    expect(lines.join('\n')).not.toContain('sk_not-a-real-key');
  });
});
