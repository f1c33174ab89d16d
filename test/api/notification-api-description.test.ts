import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { type Client, client, createProduct } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';

/**
 * Contract §13's endpoints as /openapi.json describes them: every status each one answers here, and
 * the ETag and Retry-After headers it sends with it, are declared on that operation and status (the
 * SDK and the dashboard's types are generated from the document). The platform's general statuses
 * (503, …) have their own suites.
 */
interface DocumentResponse {
  headers?: Record<string, unknown>;
}
type Document = { paths: Record<string, Record<string, { responses: Record<string, DocumentResponse> }>> };

let app: TestApp;
let api: Client;
let slug: string;
let soldOut: string;
let document: Document;

beforeAll(async () => {
  // A rate limit high enough for the calls below, low enough for notify-me's own limit to answer 429.
  app = await buildTestApp({ config: { rateLimitPerMinute: 1000 } });
  const made = await createStoreWithKey(app);
  api = client(app, made.key);
  slug = made.store.slug;
  soldOut = (await createProduct(api, { name: 'Sold-out mug', price: '9.00', inventory: 0 })).slug;
  document = (await app.server.inject({ method: 'GET', url: '/openapi.json' })).json() as Document;
});
afterAll(() => app.close());

const T = '/api/v1/notifications/templates';
const TEMPLATE = `${T}/{kind}`;

interface Answer {
  /** The operation's path as the document names it. */
  path: string;
  method: 'get' | 'put' | 'post' | 'delete';
  res: LightMyRequestResponse;
}

/** What the document leaves out of the answer: its status, or a header it carries. */
function undeclared({ path, method, res }: Answer): string[] {
  const where = `${method.toUpperCase()} ${path} ${res.statusCode}`;
  const declared = document.paths[path]?.[method]?.responses[String(res.statusCode)];
  if (!declared) return [where];
  const headers = Object.keys(declared.headers ?? {}).map((name) => name.toLowerCase());
  return ['etag', 'retry-after']
    .filter((name) => res.headers[name] !== undefined && !headers.includes(name))
    .map((name) => `${where} header ${name}`);
}

describe('the notification endpoints in /openapi.json', () => {
  it('declare every status they answer, with its ETag and Retry-After', async () => {
    const anonymous = client(app);
    const unscoped = client(app, (await createStoreWithKey(app, { scopes: ['orders:read'] })).key);
    const answers: Answer[] = [];
    const answer = async (path: string, method: Answer['method'], call: Promise<LightMyRequestResponse>) => {
      const res = await call;
      answers.push({ path, method, res });
      return res;
    };

    // The log.
    const LOG = '/api/v1/notifications';
    await answer(LOG, 'get', api.get(`${LOG}?kind=order_confirmation&status=sent`));
    await answer(LOG, 'get', api.get(`${LOG}?status=lost`));
    await answer(LOG, 'get', anonymous.get(LOG));
    await answer(LOG, 'get', unscoped.get(LOG));

    // Templates: read, change (also over a stale ETag, badly, too big, not JSON), restore.
    await answer(T, 'get', api.get(T));
    await answer(TEMPLATE, 'get', api.get(`${T}/order_confirmation`));
    await answer(TEMPLATE, 'get', api.get(`${T}/nope`));
    await answer(
      TEMPLATE,
      'put',
      api.put(`${T}/order_confirmation`, { subject: 'Thanks — {{ store.name }}' }),
    );
    await answer(
      TEMPLATE,
      'put',
      api.put(`${T}/order_confirmation`, { enabled: false }, { 'if-match': '"stale"' }),
    );
    await answer(TEMPLATE, 'put', api.put(`${T}/order_confirmation`, { html: '{% foo %}' }));
    await answer(TEMPLATE, 'put', api.put(`${T}/nope`, { enabled: false }));
    await answer(TEMPLATE, 'put', api.put(`${T}/order_confirmation`, { html: 'x'.repeat(1024 * 1024 + 10) }));
    await answer(
      TEMPLATE,
      'put',
      api.put(`${T}/order_confirmation`, 'enabled=false', { 'content-type': 'text/plain' }),
    );
    await answer(TEMPLATE, 'put', unscoped.put(`${T}/order_confirmation`, { enabled: false }));
    await answer(TEMPLATE, 'delete', api.del(`${T}/order_confirmation`));
    await answer(TEMPLATE, 'delete', api.del(`${T}/nope`));

    // Preview and test send.
    await answer(`${TEMPLATE}/preview`, 'post', api.post(`${T}/order_confirmation/preview`, {}));
    await answer(
      `${TEMPLATE}/preview`,
      'post',
      api.post(`${T}/order_confirmation/preview`, { text: '{{ x' }),
    );
    await answer(`${TEMPLATE}/preview`, 'post', api.post(`${T}/nope/preview`, {}));
    const sent = await answer(
      `${TEMPLATE}/test`,
      'post',
      api.post(`${T}/new_order/test`, { to: 'me@example.com' }),
    );
    await answer(`${TEMPLATE}/test`, 'post', api.post(`${T}/new_order/test`, { to: 'not an address' }));
    await answer(`${TEMPLATE}/test`, 'post', api.post(`${T}/nope/test`, { to: 'me@example.com' }));

    // Resend.
    const RESEND = '/api/v1/notifications/{id}/resend';
    await answer(RESEND, 'post', api.post(`/api/v1/notifications/${sent.json().data.id}/resend`, {}));
    await answer(
      RESEND,
      'post',
      api.post('/api/v1/notifications/01900000-0000-7000-8000-000000000000/resend', {}),
    );
    await answer(RESEND, 'post', unscoped.post(`/api/v1/notifications/${sent.json().data.id}/resend`, {}));

    // Notify-me: a sign-up, refusals, and one e-mail's limit (5 per 15 minutes).
    const NOTIFY = '/api/storefront/{slug}/products/{productSlug}/notify-me';
    const notifyMe = (product: string, body: unknown) =>
      anonymous.post(`/api/storefront/${slug}/products/${product}/notify-me`, body);
    await answer(NOTIFY, 'post', notifyMe(soldOut, { email: 'a@example.com' }));
    await answer(NOTIFY, 'post', notifyMe(soldOut, { email: 'nope' }));
    await answer(NOTIFY, 'post', notifyMe('no-such-product', { email: 'a@example.com' }));
    for (let i = 0; i < 6; i++)
      await answer(NOTIFY, 'post', notifyMe(soldOut, { email: 'many@example.com' }));

    // Each case answered as intended, so the check below is about the statuses the API really gives.
    const statuses = (path: string, method: string) =>
      [
        ...new Set(
          answers.filter((a) => a.path === path && a.method === method).map((a) => a.res.statusCode),
        ),
      ].sort();
    expect(statuses(LOG, 'get')).toEqual([200, 400, 401, 403]);
    expect(statuses(TEMPLATE, 'put')).toEqual([200, 400, 403, 404, 412, 413, 415]);
    expect(statuses(TEMPLATE, 'delete')).toEqual([200, 404]);
    expect(statuses(`${TEMPLATE}/test`, 'post')).toEqual([202, 400, 404]);
    expect(statuses(RESEND, 'post')).toEqual([202, 403, 404]);
    expect(statuses(NOTIFY, 'post')).toEqual([202, 400, 404, 429]);

    expect(answers.flatMap(undeclared)).toEqual([]);
  });
});
