import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createStoreWithKey } from '../helpers/factories.js';

/**
 * Every error a client can provoke, down to the HTTP parser, is answered in the contract's error
 * body with a request id: raw requests on a real listening server (127.0.0.1), so nothing between the
 * socket and the application is skipped.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends `request` as it is and reads the first response (the connection is closed after 5 s at most). */
function rawRequest(port: number, request: string | Buffer): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    let data = Buffer.alloc(0);
    const timer = setTimeout(() => socket.destroy(), 5000);
    socket.on('data', (chunk) => {
      data = Buffer.concat([data, chunk]);
      const text = data.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, end))?.[1];
      if (length !== undefined && data.length >= end + 4 + Number(length)) socket.destroy();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      const text = data.toString('utf8');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return reject(new Error(`no response: ${JSON.stringify(text.slice(0, 200))}`));
      const [statusLine = '', ...lines] = text.slice(0, end).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: text.slice(end + 4) });
    });
    socket.on('connect', () => socket.write(request));
  });
}

let app: TestApp;
let port: number;
let key: string;

beforeAll(async () => {
  app = await buildTestApp();
  key = (await createStoreWithKey(app, { scopes: ['products:write', 'products:read'] })).key;
  await app.server.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.server.address() as net.AddressInfo).port;
});
afterAll(() => app.close());

const json = (body: object) => JSON.stringify(body);
const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${Object.entries({
    'content-length': String(Buffer.byteLength(body)),
    ...headers,
  })
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}Connection: close\r\n\r\n${body}`;

describe('errors of the HTTP parser and the router, in the error body', () => {
  const cases: [string, () => string, number, string][] = [
    [
      'a URL longer than the header limit',
      () => `GET /api/v1/products?q=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`,
      431,
      'request_header_fields_too_large',
    ],
    [
      'headers larger than the limit',
      () => `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`,
      431,
      'request_header_fields_too_large',
    ],
    ['an unknown method', () => 'FROB /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', 400, 'invalid_request'],
    ['a request line that is not HTTP', () => 'hello there\r\n\r\n', 400, 'invalid_request'],
    [
      'a header name with a space',
      () => 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header: x\r\n\r\n',
      400,
      'invalid_request',
    ],
    [
      'both Content-Length and Transfer-Encoding',
      () =>
        'POST /api/v1/products HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
        'Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      400,
      'invalid_request',
    ],
    ['an HTTP/1.1 request without Host', () => 'GET /healthz HTTP/1.1\r\n\r\n', 400, 'invalid_request'],
    [
      'a method HTTP knows and no route has',
      () => 'PROPFIND /api/v1/products HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n',
      404,
      'not_found',
    ],
    ['an unknown route', () => 'GET /nowhere HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', 404, 'not_found'],
    [
      'a known path with another method',
      () => 'DELETE /api/v1/products HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n',
      404,
      'not_found',
    ],
    [
      'a URL that cannot be decoded',
      () => 'GET /api/v1/products/%E0%A4%A HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n',
      400,
      'invalid_request',
    ],
    [
      'malformed JSON',
      () => post('/api/v1/products', '{"name": ', { 'content-type': 'application/json', 'x-api-key': key }),
      400,
      'invalid_request',
    ],
    [
      'a body that is not JSON',
      () => post('/api/v1/products', 'name=mug', { 'content-type': 'text/plain', 'x-api-key': key }),
      415,
      'unsupported_media_type',
    ],
    [
      'a body over 1 MiB',
      () =>
        post('/api/v1/products', json({ name: 'x'.repeat(1024 * 1024) }), {
          'content-type': 'application/json',
          'x-api-key': key,
        }),
      413,
      'payload_too_large',
    ],
  ];

  it.each(cases.map(([name, request, status, code]) => [name, status, code, request] as const))(
    '%s: %i %s',
    async (_case, status, code, request) => {
      const res = await rawRequest(port, request());
      expect(res.status).toBe(status);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers['x-request-id']).toMatch(UUID);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(JSON.parse(res.body)).toEqual({ error: { code, message: expect.any(String) } });
      // Fastify's and node's own wording never reaches the client.
      expect(res.body).not.toMatch(/statusCode|FST_|HPE_|Client Error/);
    },
  );
});
