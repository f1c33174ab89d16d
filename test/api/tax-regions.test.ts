import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { type Client, client, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';

/** Tax regions through the merchant API (contract §12, issue 31). */

let app: TestApp;
let a: Client;
let b: Client;
let keyA: string;
let storeA: string;

beforeAll(async () => {
  app = await buildTestApp({ config: UNLIMITED });
  const first = await createStoreWithKey(app);
  storeA = first.store.id;
  keyA = first.key;
  a = client(app, keyA);
  b = client(app, (await createStoreWithKey(app)).key);
});
afterAll(() => app.close());

interface TaxRegionData {
  id: string;
  country: string;
  region: string | null;
  name: string;
  rate: string;
  shipping_taxable: boolean;
  created_at: string;
  updated_at: string;
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

async function createRegion(api: Client, body: Record<string, unknown>): Promise<TaxRegionData> {
  const res = await api.post('/api/v1/tax-regions', { name: 'Tax', rate: '10', ...body });
  if (res.statusCode !== 201) throw new Error(`tax region create answered ${res.statusCode}: ${res.body}`);
  return res.json().data;
}

const patch = (id: string, payload: unknown, headers: Record<string, string> = {}, key = keyA) =>
  app.server.inject({
    method: 'PATCH',
    url: `/api/v1/tax-regions/${id}`,
    headers: { 'x-api-key': key, ...headers },
    payload: payload as Record<string, unknown>,
  });

const fieldsOf = (body: string) =>
  (JSON.parse(body).error.details as { field: string }[] | undefined)?.map((d) => d.field) ?? [];

const freshStore = async () => {
  const { store, key } = await createStoreWithKey(app);
  return { storeId: store.id, api: client(app, key) };
};

describe('POST and GET /api/v1/tax-regions', () => {
  it('creates a region with exactly the contract fields; GET answers it with its ETag', async () => {
    const res = await a.post('/api/v1/tax-regions', {
      country: 'us',
      region: 'ca',
      name: 'Sales tax',
      rate: '7.250',
      shipping_taxable: true,
    });
    expect(res.statusCode, res.body).toBe(201);
    const region = res.json().data as TaxRegionData;
    expect(region).toEqual({
      id: expect.any(String),
      country: 'US',
      region: 'US-CA',
      name: 'Sales tax',
      rate: '7.25',
      shipping_taxable: true,
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
    });
    expect(res.headers.etag).toMatch(/^"/);
    const got = await a.get(`/api/v1/tax-regions/${region.id}`);
    expect(got.statusCode).toBe(200);
    expect(got.json().data).toEqual(region);
    expect(got.headers.etag).toBe(res.headers.etag);
  });

  it('a whole country: region null or absent, name "Tax" and shipping not taxed by default', async () => {
    const { api } = await freshStore();
    const de = await createRegion(api, { country: 'DE', name: undefined, rate: 19 });
    expect(de).toMatchObject({
      country: 'DE',
      region: null,
      name: 'Tax',
      rate: '19',
      shipping_taxable: false,
    });
    const fr = await createRegion(api, { country: 'fr', region: null, name: 'TVA', rate: '20.000' });
    expect(fr).toMatchObject({ country: 'FR', region: null, rate: '20' });
  });

  it('the rate is written back without trailing zeros, whatever form it came in', async () => {
    const { api } = await freshStore();
    const forms: [string | number, string][] = [
      ['0', '0'],
      [0, '0'],
      ['100', '100'],
      ['7.25', '7.25'],
      [7.5, '7.5'],
      ['0.001', '0.001'],
      ['12.340', '12.34'],
      ['019', '19'],
    ];
    const countries = ['AT', 'BE', 'BG', 'HR', 'CY', 'CZ', 'DK', 'EE'];
    for (const [i, [rate, written]] of forms.entries()) {
      const region = await createRegion(api, { country: countries[i], rate });
      expect(region.rate, String(rate)).toBe(written);
    }
  });

  it('every rate of 0 to 100 % with up to 3 decimals is kept exactly (property)', async () => {
    const { storeId, api } = await freshStore();
    const region = await createRegion(api, { country: 'SE', rate: '25' });
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 100_000 }), async (millipercent) => {
        const text = (millipercent / 1000).toFixed(3);
        const res = await api.patch(`/api/v1/tax-regions/${region.id}`, { rate: text });
        expect(res.statusCode).toBe(200);
        const written = res.json().data.rate as string;
        expect(Number(written)).toBe(Number(text));
        expect(written).not.toMatch(/\.\d*0$|\.$/);
        const cached = (await app.services.regions.regionsOf(storeId)).taxRegions[0];
        expect(cached?.rateMillipercent).toBe(millipercent);
      }),
      { numRuns: 40 },
    );
  });

  it('lists newest first in the list envelope, filtered by country (any case), only the store’s own', async () => {
    const { api } = await freshStore();
    const ny = await createRegion(api, { country: 'US', region: 'NY', rate: '4' });
    const us = await createRegion(api, { country: 'US', rate: '0' });
    const de = await createRegion(api, { country: 'DE', rate: '19' });
    await createRegion(b, { country: 'US', region: 'TX', rate: '6.25' });
    const all = await api.get('/api/v1/tax-regions');
    expect(all.statusCode).toBe(200);
    expect((all.json().data as TaxRegionData[]).map((r) => r.id)).toEqual([de.id, us.id, ny.id]);
    const ofUs = await api.get('/api/v1/tax-regions?country=us&limit=1');
    expect(ofUs.json()).toEqual({
      data: [us],
      meta: { pagination: { page: 1, limit: 1, total: 2, total_pages: 2, has_next: true, has_prev: false } },
    });
    expect((await api.get('/api/v1/tax-regions?country=USA')).statusCode).toBe(400);
  });
});

describe('validation: 400 naming the field', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['an unknown country', { country: 'XX', rate: '1' }, 'country'],
    ['a three-letter country', { country: 'USA', rate: '1' }, 'country'],
    ['no country', { rate: '1' }, 'country'],
    ['an unknown subdivision', { country: 'US', region: 'US-XX', rate: '1' }, 'region'],
    ['an unknown short subdivision', { country: 'US', region: 'XX', rate: '1' }, 'region'],
    ['a subdivision of another country', { country: 'US', region: 'DE-BY', rate: '1' }, 'region'],
    ['a malformed region', { country: 'US', region: 'California', rate: '1' }, 'region'],
    ['an empty region', { country: 'US', region: '', rate: '1' }, 'region'],
    ['no rate', { country: 'US' }, 'rate'],
    ['a negative rate', { country: 'US', rate: '-1' }, 'rate'],
    ['a negative number rate', { country: 'US', rate: -0.5 }, 'rate'],
    ['a rate over 100', { country: 'US', rate: '100.001' }, 'rate'],
    ['a number rate over 100', { country: 'US', rate: 101 }, 'rate'],
    ['four decimals', { country: 'US', rate: '7.2501' }, 'rate'],
    ['four decimals as a number', { country: 'US', rate: 7.2501 }, 'rate'],
    ['a huge rate', { country: 'US', rate: '99999999999999999999' }, 'rate'],
    ['a huge number rate', { country: 'US', rate: 1e300 }, 'rate'],
    ['an exponent', { country: 'US', rate: '1e1' }, 'rate'],
    ['a rate that is no number', { country: 'US', rate: 'nineteen' }, 'rate'],
    ['a boolean rate', { country: 'US', rate: true }, 'rate'],
    ['a NUL byte in the name', { country: 'US', rate: '1', name: 'V\u0000AT' }, 'name'],
    ['a blank name', { country: 'US', rate: '1', name: '  ' }, 'name'],
    ['a name too long', { country: 'US', rate: '1', name: 'x'.repeat(101) }, 'name'],
    ['a NUL byte in the region', { country: 'US', region: 'C\u0000A', rate: '1' }, 'region'],
    [
      'shipping_taxable not a boolean',
      { country: 'US', rate: '1', shipping_taxable: 'yes' },
      'shipping_taxable',
    ],
    ['an unknown field', { country: 'US', rate: '1', vat: true }, 'vat'],
  ];
  it.each(cases)('%s', async (_what, body, field) => {
    const res = await a.post('/api/v1/tax-regions', body);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().error.code).toBe('invalid_request');
    expect(fieldsOf(res.body)).toContain(field);
  });

  it('an empty PATCH is 400', async () => {
    const region = await createRegion(a, { country: 'NO', rate: '25' });
    expect((await a.patch(`/api/v1/tax-regions/${region.id}`, {})).statusCode).toBe(400);
  });
});

describe('one tax region per country and region', () => {
  it('a second region for one place is 409 naming it, whichever way the region is written', async () => {
    const { api } = await freshStore();
    await createRegion(api, { country: 'US', region: 'US-TX', rate: '6.25' });
    await createRegion(api, { country: 'US', rate: '0' });
    for (const region of ['US-TX', 'tx', 'us-tx']) {
      const res = await api.post('/api/v1/tax-regions', { country: 'us', region, rate: '1' });
      expect(res.statusCode).toBe(409);
      expect(res.json().error).toMatchObject({ code: 'conflict', details: [{ field: 'region' }] });
      expect(res.json().error.message).toContain('US-TX');
    }
    const whole = await api.post('/api/v1/tax-regions', { country: 'US', rate: '1' });
    expect(whole.statusCode).toBe(409);
    expect(whole.json().error.details).toEqual([
      { field: 'country', message: expect.stringContaining('US') },
    ]);
    // Another store has places of its own.
    const other = (await freshStore()).api;
    expect(
      (await other.post('/api/v1/tax-regions', { country: 'US', region: 'TX', rate: '1' })).statusCode,
    ).toBe(201);
  });

  it('two requests creating one place at once: one 201, the other 409', async () => {
    const { api } = await freshStore();
    for (const body of [
      { country: 'CA', region: 'CA-ON', rate: '13' },
      { country: 'CA', rate: '5' },
      { country: 'AU', rate: '10' },
    ]) {
      const answers = await Promise.all([
        api.post('/api/v1/tax-regions', body),
        api.post('/api/v1/tax-regions', { ...body, name: 'Other' }),
      ]);
      expect(answers.map((r) => r.statusCode).sort(), answers.map((r) => r.body).join('\n')).toEqual([
        201, 409,
      ]);
    }
  });

  it('a PATCH moving a region onto another’s place is 409 and changes nothing', async () => {
    const { api } = await freshStore();
    await createRegion(api, { country: 'US', region: 'NY', rate: '4' });
    const nj = await createRegion(api, { country: 'US', region: 'NJ', rate: '6.625' });
    const res = await api.patch(`/api/v1/tax-regions/${nj.id}`, { region: 'us-ny', rate: '1' });
    expect(res.statusCode).toBe(409);
    expect((await api.get(`/api/v1/tax-regions/${nj.id}`)).json().data).toEqual(nj);
  });
});

describe('PATCH /api/v1/tax-regions/{id}', () => {
  it('changes the fields given; a new country re-checks the region it keeps', async () => {
    const { api } = await freshStore();
    const ca = await createRegion(api, { country: 'US', region: 'US-CA', name: 'Sales tax', rate: '7.25' });
    const res = await api.patch(`/api/v1/tax-regions/${ca.id}`, { rate: '7.5', shipping_taxable: true });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({
      region: 'US-CA',
      name: 'Sales tax',
      rate: '7.5',
      shipping_taxable: true,
    });

    const moved = await api.patch(`/api/v1/tax-regions/${ca.id}`, { country: 'DE' });
    expect(moved.statusCode).toBe(400);
    expect(fieldsOf(moved.body)).toEqual(['region']);
    const bavaria = await api.patch(`/api/v1/tax-regions/${ca.id}`, {
      country: 'de',
      region: 'BY',
      name: 'MwSt',
    });
    expect(bavaria.statusCode).toBe(200);
    expect(bavaria.json().data).toMatchObject({ country: 'DE', region: 'DE-BY', name: 'MwSt' });
    const whole = await api.patch(`/api/v1/tax-regions/${ca.id}`, { region: null });
    expect(whole.json().data).toMatchObject({ country: 'DE', region: null });
    for (const [body, field] of [
      [{ rate: '101' }, 'rate'],
      [{ country: 'ZZ' }, 'country'],
      [{ region: 'DE-XX' }, 'region'],
      [{ name: '' }, 'name'],
    ] as const) {
      const bad = await api.patch(`/api/v1/tax-regions/${ca.id}`, body);
      expect(bad.statusCode, JSON.stringify(body)).toBe(400);
      expect(fieldsOf(bad.body)).toEqual([field]);
    }
  });

  it('If-Match: a stale tag is 412 with nothing changed; a current one applies; none applies', async () => {
    const region = await createRegion(a, { country: 'IT', rate: '22' });
    const tag = String((await a.get(`/api/v1/tax-regions/${region.id}`)).headers.etag);
    const first = await patch(region.id, { rate: '21' }, { 'if-match': tag });
    expect(first.statusCode).toBe(200);
    expect(first.headers.etag).not.toBe(tag);
    const stale = await patch(region.id, { rate: '20' }, { 'if-match': tag });
    expect(stale.statusCode).toBe(412);
    expect(stale.json().error.code).toBe('precondition_failed');
    expect((await a.get(`/api/v1/tax-regions/${region.id}`)).json().data.rate).toBe('21');
    expect(
      (await patch(region.id, { rate: '20' }, { 'if-match': String(first.headers.etag) })).statusCode,
    ).toBe(200);
    expect((await patch(region.id, { rate: '19' })).statusCode).toBe(200);
    const answers = await Promise.all([
      patch(
        region.id,
        { rate: '1' },
        { 'if-match': String((await a.get(`/api/v1/tax-regions/${region.id}`)).headers.etag) },
      ),
      patch(
        region.id,
        { rate: '2' },
        { 'if-match': String((await a.get(`/api/v1/tax-regions/${region.id}`)).headers.etag) },
      ),
    ]);
    expect(answers.map((r) => r.statusCode).sort()).toEqual([200, 412]);
  });
});

describe('scopes and tenancy', () => {
  it('settings:read reads, settings:write writes; 403 otherwise', async () => {
    const region = await createRegion(a, { country: 'ES', rate: '21' });
    const readKey = (await app.services.stores.createApiKey(storeA, { scopes: ['settings:read'] })).key;
    const reader = client(app, readKey);
    const none = client(
      app,
      (await app.services.stores.createApiKey(storeA, { scopes: ['orders:read'] })).key,
    );
    expect((await reader.get('/api/v1/tax-regions')).statusCode).toBe(200);
    expect((await reader.get(`/api/v1/tax-regions/${region.id}`)).statusCode).toBe(200);
    expect((await reader.post('/api/v1/tax-regions', { country: 'PT', rate: '23' })).statusCode).toBe(403);
    expect((await patch(region.id, { rate: '1' }, {}, readKey)).statusCode).toBe(403);
    expect((await reader.del(`/api/v1/tax-regions/${region.id}`)).statusCode).toBe(403);
    expect((await none.get('/api/v1/tax-regions')).statusCode).toBe(403);
    expect((await none.get(`/api/v1/tax-regions/${region.id}`)).statusCode).toBe(403);
  });

  it('another store’s region is 404 for GET, PATCH and DELETE, and stays as it was', async () => {
    const region = await createRegion(a, { country: 'GB', rate: '20', name: 'VAT' });
    const tag = String((await a.get(`/api/v1/tax-regions/${region.id}`)).headers.etag);
    const bKey = (await createStoreWithKey(app)).key;
    expect((await b.get(`/api/v1/tax-regions/${region.id}`)).statusCode).toBe(404);
    expect((await b.patch(`/api/v1/tax-regions/${region.id}`, { rate: '0' })).statusCode).toBe(404);
    expect((await patch(region.id, { rate: '0' }, { 'if-match': tag }, bKey)).statusCode).toBe(404);
    expect((await b.del(`/api/v1/tax-regions/${region.id}`)).statusCode).toBe(404);
    expect((await a.get(`/api/v1/tax-regions/${region.id}`)).json().data).toEqual(region);
    for (const id of [randomUUID(), 'not-a-uuid']) {
      expect((await a.get(`/api/v1/tax-regions/${id}`)).statusCode).toBe(404);
      expect((await a.patch(`/api/v1/tax-regions/${id}`, { rate: '1' })).statusCode).toBe(404);
      expect((await a.del(`/api/v1/tax-regions/${id}`)).statusCode).toBe(404);
    }
  });

  it('DELETE answers 204 and frees the place', async () => {
    const region = await createRegion(a, { country: 'JP', rate: '10' });
    const res = await a.del(`/api/v1/tax-regions/${region.id}`);
    expect(res.statusCode).toBe(204);
    expect((await a.get(`/api/v1/tax-regions/${region.id}`)).statusCode).toBe(404);
    expect((await a.post('/api/v1/tax-regions', { country: 'JP', rate: '8' })).statusCode).toBe(201);
  });
});

describe('the pricing path’s cached view (RegionsPort)', () => {
  it('every write through the API is seen by the next regionsOf', async () => {
    const { storeId, api } = await freshStore();
    const regionsOf = () => app.services.regions.regionsOf(storeId);
    expect((await regionsOf()).taxRegions).toEqual([]);
    const ca = await createRegion(api, { country: 'US', region: 'CA', name: 'Sales tax', rate: '7.25' });
    expect((await regionsOf()).taxRegions).toEqual([
      {
        id: ca.id,
        country: 'US',
        region: 'US-CA',
        name: 'Sales tax',
        rateMillipercent: 7250,
        shippingTaxable: false,
      },
    ]);
    await api.patch(`/api/v1/tax-regions/${ca.id}`, { rate: '8', shipping_taxable: true });
    expect((await regionsOf()).taxRegions[0]).toMatchObject({
      rateMillipercent: 8000,
      shippingTaxable: true,
    });
    await api.del(`/api/v1/tax-regions/${ca.id}`);
    expect((await regionsOf()).taxRegions).toEqual([]);
  });
});
