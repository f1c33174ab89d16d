import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  redirectTo,
  serveBytes,
  slow,
  startTestHost,
  type TestHost,
} from '../../../test/helpers/image-host.js';
import { createSafeFetch, OutboundError, type OutboundErrorReason, type SafeFetch } from './safe-fetch.js';
import { classifyAddress, type HostResolver } from './ssrf-guard.js';

/**
 * Two hosts on loopback: `a` on 127.0.0.1 and `b` on 127.0.0.2. Guard tests pretend, through the
 * injectable classifier, that 127.0.0.1 is a public address, so `a` plays a public server and `b` a
 * private one; every other address is judged by the real classifier.
 */
let a: TestHost;
let b: TestHost;
const fetchers: SafeFetch[] = [];

function open(options: Parameters<typeof createSafeFetch>[0]): SafeFetch {
  const fetcher = createSafeFetch(options);
  fetchers.push(fetcher);
  return fetcher;
}

const treat127001AsPublic = (address: string) => (address === '127.0.0.1' ? null : classifyAddress(address));
const fakeDns: HostResolver = async (hostname) => {
  const table: Record<string, string> = { 'public.test': '127.0.0.1', 'internal.test': '127.0.0.2' };
  const address = table[hostname];
  if (!address) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return [{ address, family: 4 }];
};

async function failure(promise: Promise<unknown>): Promise<OutboundError> {
  const error = await promise.then(
    () => {
      throw new Error('expected the request to fail');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OutboundError);
  return error as OutboundError;
}

async function expectReason(promise: Promise<unknown>, reason: OutboundErrorReason): Promise<OutboundError> {
  const error = await failure(promise);
  expect(error.reason, error.message).toBe(reason);
  return error;
}

beforeAll(async () => {
  b = await startTestHost(
    {
      '/secret': serveBytes(Buffer.from('internal data'), 'text/plain'),
      '/headers': (req, res) =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(req.headers)),
    },
    '127.0.0.2',
  );
  a = await startTestHost({
    '/hello': serveBytes(Buffer.from('hello'), 'text/plain; charset=utf-8'),
    '/echo': (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () =>
        res.writeHead(201, { 'content-type': 'application/json', 'x-multi': ['1', '2'] }).end(
          JSON.stringify({
            method: req.method,
            body: Buffer.concat(chunks).toString(),
            header: req.headers['x-test'],
          }),
        ),
      );
    },
    '/r1': redirectTo('/r2', 301),
    '/r2': redirectTo('/hello', 307),
    '/loop': redirectTo('/loop'),
    '/to-ftp': redirectTo('ftp://example.com/file'),
    '/no-location': (_req, res) => res.writeHead(302).end(),
    '/see-other': redirectTo('/echo', 303),
    '/to-b-literal': (_req, res) =>
      res.writeHead(302, { location: `http://127.0.0.2:${b.port}/secret` }).end(),
    '/to-b-name': (_req, res) =>
      res.writeHead(302, { location: `http://internal.test:${b.port}/secret` }).end(),
    '/to-b-headers': (_req, res) => res.writeHead(302, { location: `${b.origin}/headers` }).end(),
    '/missing-image': (_req, res) => res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>404</h1>'),
    '/large-declared': serveBytes(Buffer.alloc(200_000), 'application/octet-stream'),
    '/large-chunked': serveBytes(Buffer.alloc(200_000), 'application/octet-stream', { chunked: true }),
    '/slow-headers': slow(5_000),
    '/stalled-body': slow(0, { stallBody: true }),
  });
});

afterAll(async () => {
  await Promise.all(fetchers.map((f) => f.close()));
  await Promise.all([a?.close(), b?.close()]);
});

describe('safe fetch (private URLs allowed)', () => {
  it('returns status, headers, body and final URL', async () => {
    const fetch = open({ allowPrivateUrls: true });
    const response = await fetch(a.url('/hello'));
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(response.body.toString()).toBe('hello');
    expect(response.finalUrl).toBe(a.url('/hello'));
  });

  it('sends a method, headers and a body', async () => {
    const fetch = open({ allowPrivateUrls: true });
    const response = await fetch(a.url('/echo'), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Test': 'yes' },
      body: '{"a":1}',
    });
    expect(response.status).toBe(201);
    expect(JSON.parse(response.body.toString())).toEqual({ method: 'POST', body: '{"a":1}', header: 'yes' });
    expect(response.headers['x-multi']).toBe('1, 2');
  });

  it('follows redirects and reports the final URL', async () => {
    const fetch = open({ allowPrivateUrls: true });
    const response = await fetch(a.url('/r1'));
    expect(response.body.toString()).toBe('hello');
    expect(response.finalUrl).toBe(a.url('/hello'));
  });

  it('turns a POST into a GET without body on 303', async () => {
    const fetch = open({ allowPrivateUrls: true });
    const response = await fetch(a.url('/see-other'), {
      method: 'POST',
      body: 'x',
      headers: { 'x-test': 't' },
    });
    expect(JSON.parse(response.body.toString())).toEqual({ method: 'GET', body: '', header: 't' });
  });

  it('drops credentials on a cross-origin redirect', async () => {
    const fetch = open({ allowPrivateUrls: true });
    const response = await fetch(a.url('/to-b-headers'), {
      headers: { authorization: 'Bearer secret', cookie: 'a=b', 'x-keep': 'kept' },
    });
    const received = JSON.parse(response.body.toString());
    expect(received.authorization).toBeUndefined();
    expect(received.cookie).toBeUndefined();
    expect(received['x-keep']).toBe('kept');
  });

  it('returns a redirect as the response when redirects are not followed', async () => {
    const fetch = open({ allowPrivateUrls: true });
    const response = await fetch(a.url('/r1'), { redirect: 'manual', acceptStatus: () => true });
    expect(response.status).toBe(301);
    expect(response.headers.location).toBe('/r2');
    await expectReason(fetch(a.url('/r1'), { redirect: 'manual' }), 'bad_status');
  });

  it('stops after too many redirects', async () => {
    const fetch = open({ allowPrivateUrls: true });
    const error = await expectReason(fetch(a.url('/loop')), 'too_many_redirects');
    expect(a.hits.get('/loop')).toBeGreaterThanOrEqual(6);
    expect(error.message).toContain(a.url('/loop'));
    await expectReason(fetch(a.url('/r1'), { maxRedirects: 1 }), 'too_many_redirects');
  });

  it('refuses redirects to other schemes and redirects without a location', async () => {
    const fetch = open({ allowPrivateUrls: true });
    await expectReason(fetch(a.url('/to-ftp')), 'invalid_url');
    await expectReason(fetch(a.url('/no-location')), 'bad_status');
  });

  it('rejects invalid URLs and non-http schemes', async () => {
    const fetch = open({ allowPrivateUrls: true });
    await expectReason(fetch('not a url'), 'invalid_url');
    const error = await expectReason(fetch('file:///etc/passwd'), 'invalid_url');
    expect(error.message).toBe('file:///etc/passwd: only http and https URLs are allowed');
    await expectReason(fetch('javascript:alert(1)'), 'invalid_url');
  });

  it('reports a non-accepted status with the status and the URL', async () => {
    const fetch = open({ allowPrivateUrls: true });
    const error = await expectReason(fetch(a.url('/missing-image')), 'bad_status');
    expect(error.status).toBe(404);
    expect(error.message).toBe(`${a.url('/missing-image')}: the server answered 404`);
  });

  it('applies the content-type predicate to the media type', async () => {
    const fetch = open({ allowPrivateUrls: true });
    const seen: string[] = [];
    const error = await expectReason(
      fetch(a.url('/hello'), {
        acceptContentType: (type) => {
          seen.push(type);
          return type.startsWith('image/');
        },
      }),
      'bad_content_type',
    );
    expect(seen).toEqual(['text/plain']);
    expect(error.message).toContain('"text/plain"');
  });

  it('rejects a declared Content-Length over the limit, and a streamed body once it passes the limit', async () => {
    const fetch = open({ allowPrivateUrls: true });
    const declared = await expectReason(fetch(a.url('/large-declared'), { maxBytes: 100_000 }), 'too_large');
    expect(declared.message).toContain('200000 bytes');
    await expectReason(fetch(a.url('/large-chunked'), { maxBytes: 100_000 }), 'too_large');
    const exact = await fetch(a.url('/large-chunked'), { maxBytes: 200_000 });
    expect(exact.body.length).toBe(200_000);
  });

  it('times out slow headers and a stalled body', async () => {
    const fetch = open({ allowPrivateUrls: true });
    const started = Date.now();
    await expectReason(fetch(a.url('/slow-headers'), { timeoutMs: 300 }), 'timeout');
    await expectReason(fetch(a.url('/stalled-body'), { timeoutMs: 300 }), 'timeout');
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('reports network errors and cancellation', async () => {
    const fetch = open({ allowPrivateUrls: true });
    const closed = await startTestHost();
    const url = closed.url('/x');
    await closed.close();
    const refused = await expectReason(fetch(url), 'network');
    expect(refused.message).toBe(`${url}: the connection was refused`);
    const controller = new AbortController();
    const pending = fetch(a.url('/slow-headers'), { signal: controller.signal });
    controller.abort();
    await expectReason(pending, 'network');
  });

  it('keeps credentials out of messages', async () => {
    const fetch = open({ allowPrivateUrls: true });
    const error = await failure(fetch(`http://user:pa55@127.0.0.1:${a.port}/missing-image`));
    expect(error.message).not.toContain('pa55');
    expect(error.url).toBe(a.url('/missing-image'));
  });
});

describe('safe fetch SSRF guard', () => {
  it('refuses loopback literals in every spelling, before connecting', async () => {
    const fetch = open({});
    const before = a.hits.get('/hello') ?? 0;
    for (const host of ['127.0.0.1', '[::1]', '[::ffff:127.0.0.1]', '2130706433', '0x7f.1', '0.0.0.0']) {
      const error = await expectReason(fetch(`http://${host}:${a.port}/hello`), 'blocked_address');
      expect(error.message).toMatch(/(loopback|unspecified) address/);
    }
    expect(a.hits.get('/hello') ?? 0).toBe(before);
  });

  it('refuses metadata and private addresses', async () => {
    const fetch = open({});
    const metadata = await expectReason(fetch('http://169.254.169.254/latest/meta-data/'), 'blocked_address');
    expect(metadata.message).toBe(
      'http://169.254.169.254/latest/meta-data/: 169.254.169.254 is a metadata address',
    );
    await expectReason(fetch('http://[fd00:ec2::254]/'), 'blocked_address');
    await expectReason(fetch('http://10.1.2.3/'), 'blocked_address');
    await expectReason(fetch('http://[::ffff:a9fe:a9fe]/'), 'blocked_address');
  });

  it('refuses a host name that resolves to a private address (real DNS: localhost)', async () => {
    const fetch = open({});
    const error = await expectReason(fetch(`http://localhost:${a.port}/hello`), 'blocked_address');
    expect(error.message).toContain('localhost resolves to');
  });

  it('connects to the address the guard resolved and checked (no second resolution)', async () => {
    let lookups = 0;
    const counting: HostResolver = async (hostname) => {
      lookups++;
      return fakeDns(hostname);
    };
    const fetch = open({ resolve: counting, classify: treat127001AsPublic });
    // public.test exists only in the injected resolver: reaching the server proves the socket used it.
    const response = await fetch(`http://public.test:${a.port}/hello`);
    expect(response.body.toString()).toBe('hello');
    expect(lookups).toBe(1);
  });

  it('refuses a host name resolving to a private address, without connecting', async () => {
    const fetch = open({ resolve: fakeDns, classify: treat127001AsPublic });
    const error = await expectReason(fetch(`http://internal.test:${b.port}/secret`), 'blocked_address');
    expect(error.message).toContain('internal.test resolves to 127.0.0.2, a loopback address');
    expect(b.hits.get('/secret') ?? 0).toBe(0);
  });

  it('re-checks every redirect hop', async () => {
    const fetch = open({ resolve: fakeDns, classify: treat127001AsPublic });
    // The first hop is "public"; the redirect goes to a private literal, then to a private name.
    const literal = await expectReason(fetch(`http://public.test:${a.port}/to-b-literal`), 'blocked_address');
    expect(literal.url).toBe(`http://127.0.0.2:${b.port}/secret`);
    const named = await expectReason(fetch(`http://public.test:${a.port}/to-b-name`), 'blocked_address');
    expect(named.url).toBe(`http://internal.test:${b.port}/secret`);
    expect(b.hits.get('/secret') ?? 0).toBe(0);
    expect(a.hits.get('/to-b-literal')).toBe(1);
  });

  it('allows the same requests when private URLs are allowed', async () => {
    const fetch = open({ allowPrivateUrls: true, resolve: fakeDns });
    const response = await fetch(`http://public.test:${a.port}/to-b-name`);
    expect(response.body.toString()).toBe('internal data');
    expect(response.finalUrl).toBe(`http://internal.test:${b.port}/secret`);
  });
});
