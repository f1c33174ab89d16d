import { iso31661, iso31662 } from 'iso-3166';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createStoreWithKey } from '../helpers/factories.js';

/**
 * The dashboard's country and subdivision names (issue 31, item 6): what its shipping and tax
 * pickers offer is exactly what the API accepts (the `iso-3166` package), behind the dashboard's
 * session.
 */
let app: TestApp;
let cookie: string;
let apiKey: string;
const PASSWORD = 'correct horse battery';

beforeAll(async () => {
  app = await buildTestApp();
  const store = await createStoreWithKey(app);
  apiKey = store.key;
  const email = `owner.${Date.now()}@countries.test`;
  await app.services.stores.createAdminUser({ email, password: PASSWORD, storeSlug: store.store.slug });
  const login = await app.server.inject({
    method: 'POST',
    url: '/api/admin/auth/login',
    payload: { email, password: PASSWORD },
  });
  expect(login.statusCode, login.body).toBe(200);
  cookie = String(login.headers['set-cookie']).split(';')[0] as string;
});
afterAll(() => app.close());

const get = (url: string, headers: Record<string, string> = { cookie }) =>
  app.server.inject({ method: 'GET', url, headers });

describe('GET /api/admin/countries', () => {
  it('lists every ISO 3166-1 country once, with an English name, sorted by name', async () => {
    const res = await get('/api/admin/countries');
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data as { code: string; name: string }[];
    expect(data.map((c) => c.code).sort()).toEqual(iso31661.map((c) => c.alpha2).sort());
    const names = data.map((c) => c.name);
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b, 'en')));
    expect(data).toContainEqual({ code: 'DE', name: 'Germany' });
    expect(data).toContainEqual({ code: 'US', name: 'United States' });
    expect(res.headers['cache-control']).toBe('private, max-age=86400');
  });

  it('gives a country with its subdivisions, in any case of the code', async () => {
    const res = await get('/api/admin/countries/us');
    expect(res.statusCode, res.body).toBe(200);
    const country = res.json().data;
    expect(country).toMatchObject({ code: 'US', name: 'United States' });
    const codes = (country.subdivisions as { code: string }[]).map((s) => s.code);
    expect(codes.sort()).toEqual(
      iso31662
        .filter((s) => s.parent === 'US')
        .map((s) => s.code)
        .sort(),
    );
    expect(country.subdivisions).toContainEqual({ code: 'US-CA', name: 'California' });
  });

  it('a country without subdivisions has an empty list; an unknown code is 404, a malformed one 400', async () => {
    const vatican = await get('/api/admin/countries/VA');
    expect(vatican.statusCode).toBe(200);
    expect(vatican.json().data).toEqual({ code: 'VA', name: expect.any(String), subdivisions: [] });
    const unknown = await get('/api/admin/countries/XX');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe('not_found');
    const malformed = await get('/api/admin/countries/USA');
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().error.details).toEqual([{ field: 'code', message: expect.any(String) }]);
  });

  it('is closed without the dashboard session, and an API key does not open it', async () => {
    expect((await get('/api/admin/countries', {})).statusCode).toBe(401);
    expect((await get('/api/admin/countries/DE', { 'x-api-key': apiKey })).statusCode).toBe(401);
  });
});
