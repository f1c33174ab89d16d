import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { type Client, client, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';

/** Shipping zones and their rates through the merchant API (contract §12, issue 31). */

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

interface RateData {
  id: string;
  name: string;
  price: string;
  min_subtotal: string | null;
  max_subtotal: string | null;
  min_weight_grams: number | null;
  max_weight_grams: number | null;
  free_above: string | null;
  delivery_days_min: number | null;
  delivery_days_max: number | null;
}
interface ZoneData {
  id: string;
  name: string;
  countries: string[];
  rates: RateData[];
  created_at: string;
  updated_at: string;
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

async function createZone(api: Client, body: Record<string, unknown>): Promise<ZoneData> {
  const res = await api.post('/api/v1/shipping-zones', { name: 'Zone', ...body });
  if (res.statusCode !== 201) throw new Error(`zone create answered ${res.statusCode}: ${res.body}`);
  return res.json().data;
}

/** PATCH with headers (the shared client's patch sends none). */
const patch = (id: string, payload: unknown, headers: Record<string, string> = {}, key = keyA) =>
  app.server.inject({
    method: 'PATCH',
    url: `/api/v1/shipping-zones/${id}`,
    headers: { 'x-api-key': key, ...headers },
    payload: payload as Record<string, unknown>,
  });

const fieldsOf = (body: string) =>
  (JSON.parse(body).error.details as { field: string }[] | undefined)?.map((d) => d.field) ?? [];

describe('POST and GET /api/v1/shipping-zones', () => {
  it('creates a zone with exactly the contract fields, country codes in any case stored upper case', async () => {
    const res = await a.post('/api/v1/shipping-zones', {
      name: 'Central Europe',
      countries: ['de', 'At'],
      rates: [
        { name: 'Standard', price: '4.90', delivery_days_min: 2, delivery_days_max: 4 },
        {
          name: 'Heavy',
          price: 12,
          min_subtotal: '10',
          max_subtotal: '500.50',
          min_weight_grams: 5000,
          max_weight_grams: 30000,
          free_above: '250',
        },
      ],
    });
    expect(res.statusCode, res.body).toBe(201);
    const zone = res.json().data as ZoneData;
    expect(Object.keys(zone).sort()).toEqual([
      'countries',
      'created_at',
      'id',
      'name',
      'rates',
      'updated_at',
    ]);
    expect(zone).toMatchObject({ name: 'Central Europe', countries: ['DE', 'AT'] });
    expect(zone.created_at).toMatch(ISO);
    expect(res.headers.etag).toMatch(/^"/);
    expect(zone.rates).toEqual([
      {
        id: expect.any(String),
        name: 'Standard',
        price: '4.90',
        min_subtotal: null,
        max_subtotal: null,
        min_weight_grams: null,
        max_weight_grams: null,
        free_above: null,
        delivery_days_min: 2,
        delivery_days_max: 4,
      },
      {
        id: expect.any(String),
        name: 'Heavy',
        price: '12.00',
        min_subtotal: '10.00',
        max_subtotal: '500.50',
        min_weight_grams: 5000,
        max_weight_grams: 30000,
        free_above: '250.00',
        delivery_days_min: null,
        delivery_days_max: null,
      },
    ]);

    const got = await a.get(`/api/v1/shipping-zones/${zone.id}`);
    expect(got.statusCode).toBe(200);
    expect(got.json().data).toEqual(zone);
    expect(got.headers.etag).toBe(res.headers.etag);
  });

  it('lists the store’s zones newest first in the list envelope, and only its own', async () => {
    const api = client(app, (await createStoreWithKey(app)).key);
    const first = await createZone(api, { name: 'First', countries: ['FR'] });
    const second = await createZone(api, { name: 'Second', countries: ['IT'] });
    await createZone(b, { name: 'Elsewhere', countries: ['ES'] });
    const res = await api.get('/api/v1/shipping-zones?limit=1&page=2');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      data: [expect.objectContaining({ id: first.id })],
      meta: { pagination: { page: 2, limit: 1, total: 2, total_pages: 2, has_next: false, has_prev: true } },
    });
    const all = (await api.get('/api/v1/shipping-zones')).json().data as ZoneData[];
    expect(all.map((z) => z.id)).toEqual([second.id, first.id]);
    expect((await api.get('/api/v1/shipping-zones?limit=101')).statusCode).toBe(400);
  });

  it('amounts follow the store currency’s decimals (a zero-decimal currency refuses cents)', async () => {
    const store = await app.services.stores.createStore({
      slug: `yen-${randomUUID().slice(0, 8)}`,
      name: 'Yen',
      currency: 'JPY',
    });
    const yen = client(app, (await app.services.stores.createApiKey(store.id, { scopes: 'all' })).key);
    const zone = await createZone(yen, { countries: ['JP'], rates: [{ name: 'Std', price: '500' }] });
    expect(zone.rates[0]?.price).toBe('500');
    const cents = await yen.post('/api/v1/shipping-zones', {
      name: 'Z',
      countries: ['KR'],
      rates: [{ name: 'Std', price: '4.90' }],
    });
    expect(cents.statusCode).toBe(400);
    expect(fieldsOf(cents.body)).toEqual(['rates.0.price']);
  });
});

describe('countries: one zone per country, one rest-of-the-world zone', () => {
  it('a country in another zone of the store is 409 naming it, and nothing is created', async () => {
    const api = client(app, (await createStoreWithKey(app)).key);
    await createZone(api, { name: 'Benelux', countries: ['BE', 'NL', 'LU'] });
    const res = await api.post('/api/v1/shipping-zones', { name: 'Low', countries: ['PL', 'nl'] });
    expect(res.statusCode).toBe(409);
    const error = res.json().error;
    expect(error.code).toBe('conflict');
    expect(error.message).toContain('NL');
    expect(error.message).toContain('Benelux');
    expect(error.details).toEqual([{ field: 'countries.1', message: expect.stringContaining('NL') }]);
    const names = ((await api.get('/api/v1/shipping-zones')).json().data as ZoneData[]).map((z) => z.name);
    expect(names).toEqual(['Benelux']);
    // PL was not kept by the refused zone.
    expect((await api.post('/api/v1/shipping-zones', { name: 'Poland', countries: ['PL'] })).statusCode).toBe(
      201,
    );
  });

  it('"*" is the rest of the world: once per store, never mixed with codes', async () => {
    const api = client(app, (await createStoreWithKey(app)).key);
    const world = await createZone(api, { name: 'World', countries: ['*'] });
    expect(world.countries).toEqual(['*']);
    const second = await api.post('/api/v1/shipping-zones', { name: 'Again', countries: ['*'] });
    expect(second.statusCode).toBe(409);
    expect(second.json().error.message).toContain('"*"');
    const mixed = await api.post('/api/v1/shipping-zones', { name: 'Mixed', countries: ['DE', '*'] });
    expect(mixed.statusCode).toBe(400);
    expect(fieldsOf(mixed.body)).toEqual(['countries']);
    // Another store has its own rest of the world.
    expect((await b.post('/api/v1/shipping-zones', { name: 'W', countries: ['*'] })).statusCode).toBe(201);
  });

  it('a PATCH taking another zone’s country is 409 and changes nothing; a country given up is free again', async () => {
    const api = client(app, (await createStoreWithKey(app)).key);
    const nordic = await createZone(api, { name: 'Nordic', countries: ['SE', 'NO'] });
    const baltic = await createZone(api, { name: 'Baltic', countries: ['EE'] });
    const res = await api.patch(`/api/v1/shipping-zones/${baltic.id}`, {
      name: 'Renamed',
      countries: ['EE', 'SE'],
    });
    expect(res.statusCode).toBe(409);
    expect(res.json().error.details).toEqual([
      { field: 'countries.1', message: expect.stringContaining('SE') },
    ]);
    expect((await api.get(`/api/v1/shipping-zones/${baltic.id}`)).json().data).toEqual(baltic);

    const moved = await api.patch(`/api/v1/shipping-zones/${nordic.id}`, { countries: ['no', 'FI'] });
    expect(moved.statusCode).toBe(200);
    expect(moved.json().data.countries).toEqual(['NO', 'FI']);
    const taken = await api.patch(`/api/v1/shipping-zones/${baltic.id}`, { countries: ['EE', 'SE'] });
    expect(taken.statusCode).toBe(200);
    expect(taken.json().data).toMatchObject({ name: 'Baltic', countries: ['EE', 'SE'] });
  });

  it('two zones claiming one country at once: one is created, the other is 409', async () => {
    const api = client(app, (await createStoreWithKey(app)).key);
    const rounds: [string[], string[]][] = [
      [['CH'], ['CH']],
      [['*'], ['*']],
      // Overlapping lists in opposite orders: the claims must not deadlock (which would be 503).
      [
        ['CZ', 'SK', 'HU'],
        ['HU', 'SK', 'CZ'],
      ],
      [
        ['GR', 'CY'],
        ['MT', 'CY'],
      ],
    ];
    for (const [first, second] of rounds) {
      const answers = await Promise.all([
        api.post('/api/v1/shipping-zones', { name: 'One', countries: first }),
        api.post('/api/v1/shipping-zones', { name: 'Two', countries: second }),
      ]);
      expect(answers.map((r) => r.statusCode).sort(), answers.map((r) => r.body).join('\n')).toEqual([
        201, 409,
      ]);
    }
    const zones = (await api.get('/api/v1/shipping-zones?limit=100')).json().data as ZoneData[];
    const countries = zones.flatMap((z) => z.countries);
    expect(new Set(countries).size).toBe(countries.length);
  });

  it('two PATCHes of two zones claiming one country at once: one 200, the other 409', async () => {
    const api = client(app, (await createStoreWithKey(app)).key);
    const one = await createZone(api, { name: 'One', countries: ['PT'] });
    const two = await createZone(api, { name: 'Two', countries: ['IE'] });
    const answers = await Promise.all([
      api.patch(`/api/v1/shipping-zones/${one.id}`, { countries: ['PT', 'IS'] }),
      api.patch(`/api/v1/shipping-zones/${two.id}`, { countries: ['IS', 'IE'] }),
    ]);
    expect(answers.map((r) => r.statusCode).sort()).toEqual([200, 409]);
  });
});

describe('validation: 400 naming the field', () => {
  const rate = (fields: Record<string, unknown>) => ({
    name: 'V',
    countries: ['BR'],
    rates: [{ name: 'R', price: '1', ...fields }],
  });
  const cases: [string, Record<string, unknown>, string][] = [
    ['an unknown country', { name: 'V', countries: ['DE', 'XX'] }, 'countries.1'],
    ['a three-letter code', { name: 'V', countries: ['DEU'] }, 'countries.0'],
    ['a country twice', { name: 'V', countries: ['DE', 'de'] }, 'countries.1'],
    ['no country', { name: 'V', countries: [] }, 'countries'],
    ['too many countries', { name: 'V', countries: Array(301).fill('DE') }, 'countries'],
    ['no name', { countries: ['DE'] }, 'name'],
    ['a blank name', { name: '   ', countries: ['DE'] }, 'name'],
    ['a name too long', { name: 'x'.repeat(101), countries: ['DE'] }, 'name'],
    ['a NUL byte in the name', { name: 'E\u0000U', countries: ['DE'] }, 'name'],
    ['an unknown field', { name: 'V', countries: ['DE'], colour: 'red' }, 'colour'],
    ['a rate without a price', { name: 'V', countries: ['BR'], rates: [{ name: 'R' }] }, 'rates.0.price'],
    ['a rate without a name', { name: 'V', countries: ['BR'], rates: [{ price: '1' }] }, 'rates.0.name'],
    ['a NUL byte in a rate name', rate({ name: 'R\u0000' }), 'rates.0.name'],
    ['a negative price', rate({ price: '-1' }), 'rates.0.price'],
    ['a negative number price', rate({ price: -1 }), 'rates.0.price'],
    ['a huge price', rate({ price: '100000000000.01' }), 'rates.0.price'],
    ['a price in exponent form', rate({ price: 1e300 }), 'rates.0.price'],
    ['a price with three decimals', rate({ price: '1.999' }), 'rates.0.price'],
    [
      'max_subtotal below min_subtotal',
      rate({ min_subtotal: '50', max_subtotal: '49.99' }),
      'rates.0.max_subtotal',
    ],
    ['a huge free_above', rate({ free_above: '99999999999999' }), 'rates.0.free_above'],
    ['fractional grams', rate({ min_weight_grams: 1.5 }), 'rates.0.min_weight_grams'],
    ['negative grams', rate({ max_weight_grams: -1 }), 'rates.0.max_weight_grams'],
    ['max weight below min', rate({ min_weight_grams: 10, max_weight_grams: 9 }), 'rates.0.max_weight_grams'],
    ['days max below min', rate({ delivery_days_min: 5, delivery_days_max: 2 }), 'rates.0.delivery_days_max'],
    ['negative days', rate({ delivery_days_min: -1 }), 'rates.0.delivery_days_min'],
    ['a rate id on create', rate({ id: randomUUID() }), 'rates.0.id'],
    [
      'too many rates',
      { name: 'V', countries: ['BR'], rates: Array.from({ length: 51 }, () => ({ name: 'R', price: '1' })) },
      'rates',
    ],
  ];
  it.each(cases)('%s', async (_what, body, field) => {
    const res = await a.post('/api/v1/shipping-zones', body);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().error.code).toBe('invalid_request');
    expect(fieldsOf(res.body)).toContain(field);
  });

  it('an empty PATCH and a non-JSON body are 400', async () => {
    const zone = await createZone(a, { countries: ['AR'] });
    const empty = await a.patch(`/api/v1/shipping-zones/${zone.id}`, {});
    expect(empty.statusCode).toBe(400);
    const text = await app.server.inject({
      method: 'POST',
      url: '/api/v1/shipping-zones',
      headers: { 'x-api-key': keyA, 'content-type': 'application/json' },
      payload: '{"name":',
    });
    expect(text.statusCode).toBe(400);
  });
});

describe('PATCH rates: the list is replaced, a rate given with its id keeps it', () => {
  it('keeps the ids given, adds the new rates, deletes the rest, in the order given', async () => {
    const zone = await createZone(a, {
      countries: ['MX'],
      rates: [
        { name: 'Slow', price: '3' },
        { name: 'Fast', price: '9' },
      ],
    });
    const [slow, fast] = zone.rates as [RateData, RateData];
    const res = await a.patch(`/api/v1/shipping-zones/${zone.id}`, {
      rates: [
        { name: 'Express', price: '15.50', delivery_days_max: 1 },
        { id: fast.id, name: 'Fast', price: '8.00' },
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    const rates = res.json().data.rates as RateData[];
    expect(rates.map((r) => [r.name, r.price])).toEqual([
      ['Express', '15.50'],
      ['Fast', '8.00'],
    ]);
    expect(rates[1]?.id).toBe(fast.id);
    expect(rates[0]?.id).not.toBe(slow.id);
    expect(res.json().data.countries).toEqual(['MX']);
    // A PATCH without rates keeps them.
    const renamed = await a.patch(`/api/v1/shipping-zones/${zone.id}`, { name: 'Mexico' });
    expect(renamed.json().data.rates).toEqual(rates);
    // An empty list removes every rate.
    const none = await a.patch(`/api/v1/shipping-zones/${zone.id}`, { rates: [] });
    expect(none.json().data.rates).toEqual([]);
  });

  it('an id that is not a rate of this zone (another zone’s, another store’s, unknown, twice) is 400, nothing changed', async () => {
    const zone = await createZone(a, { countries: ['CL'], rates: [{ name: 'Own', price: '1' }] });
    const other = await createZone(a, { countries: ['PE'], rates: [{ name: 'Other', price: '2' }] });
    const foreign = await createZone(b, { countries: ['CL'], rates: [{ name: 'Foreign', price: '3' }] });
    const own = zone.rates[0] as RateData;
    const attempts: [unknown[], string][] = [
      [[{ id: other.rates[0]?.id, name: 'Adopted', price: '1' }], 'rates.0.id'],
      [[{ id: foreign.rates[0]?.id, name: 'Adopted', price: '1' }], 'rates.0.id'],
      [[{ id: randomUUID(), name: 'Unknown', price: '1' }], 'rates.0.id'],
      [[{ id: 'not-a-uuid', name: 'Bad', price: '1' }], 'rates.0.id'],
      [
        [
          { id: own.id, name: 'A', price: '1' },
          { id: own.id, name: 'B', price: '1' },
        ],
        'rates.1.id',
      ],
    ];
    for (const [rates, field] of attempts) {
      const res = await a.patch(`/api/v1/shipping-zones/${zone.id}`, { name: 'Changed', rates });
      expect(res.statusCode, res.body).toBe(400);
      expect(fieldsOf(res.body)).toEqual([field]);
    }
    expect((await a.get(`/api/v1/shipping-zones/${zone.id}`)).json().data).toEqual(zone);
    expect((await a.get(`/api/v1/shipping-zones/${other.id}`)).json().data).toEqual(other);
    expect((await b.get(`/api/v1/shipping-zones/${foreign.id}`)).json().data).toEqual(foreign);
  });
});

describe('If-Match on PATCH', () => {
  it('ETag on GET and PATCH; a stale If-Match is 412 with nothing changed; without If-Match it applies', async () => {
    const zone = await createZone(a, { countries: ['NZ'] });
    const tag = String((await a.get(`/api/v1/shipping-zones/${zone.id}`)).headers.etag);
    const first = await patch(zone.id, { name: 'Kiwi' }, { 'if-match': tag });
    expect(first.statusCode).toBe(200);
    const newTag = String(first.headers.etag);
    expect(newTag).not.toBe(tag);
    const stale = await patch(zone.id, { name: 'Stale' }, { 'if-match': tag });
    expect(stale.statusCode).toBe(412);
    expect(stale.json().error.code).toBe('precondition_failed');
    expect((await a.get(`/api/v1/shipping-zones/${zone.id}`)).json().data.name).toBe('Kiwi');
    expect((await patch(zone.id, { name: 'Any' }, { 'if-match': '*' })).statusCode).toBe(200);
    expect((await patch(zone.id, { name: 'Plain' })).statusCode).toBe(200);
    expect((await patch(zone.id, { name: 'Bad' }, { 'if-match': 'unquoted' })).statusCode).toBe(400);
  });

  it('of two concurrent PATCHes with the same If-Match, one is 200 and the other 412', async () => {
    const zone = await createZone(a, { countries: ['AU'] });
    const tag = String((await a.get(`/api/v1/shipping-zones/${zone.id}`)).headers.etag);
    const answers = await Promise.all([
      patch(zone.id, { name: 'One' }, { 'if-match': tag }),
      patch(zone.id, { name: 'Two' }, { 'if-match': tag }),
    ]);
    expect(answers.map((r) => r.statusCode).sort()).toEqual([200, 412]);
  });
});

describe('scopes and tenancy', () => {
  it('settings:read reads, settings:write writes; 403 otherwise', async () => {
    const zone = await createZone(a, { countries: ['ZA'] });
    const readKey = (await app.services.stores.createApiKey(storeA, { scopes: ['settings:read'] })).key;
    const reader = client(app, readKey);
    const none = client(
      app,
      (await app.services.stores.createApiKey(storeA, { scopes: ['products:read'] })).key,
    );
    expect((await reader.get('/api/v1/shipping-zones')).statusCode).toBe(200);
    expect((await reader.get(`/api/v1/shipping-zones/${zone.id}`)).statusCode).toBe(200);
    expect((await reader.post('/api/v1/shipping-zones', { name: 'N', countries: ['NA'] })).statusCode).toBe(
      403,
    );
    expect((await patch(zone.id, { name: 'N' }, {}, readKey)).statusCode).toBe(403);
    expect((await reader.del(`/api/v1/shipping-zones/${zone.id}`)).statusCode).toBe(403);
    expect((await none.get('/api/v1/shipping-zones')).statusCode).toBe(403);
    expect((await none.get(`/api/v1/shipping-zones/${zone.id}`)).statusCode).toBe(403);
    expect((await client(app).get('/api/v1/shipping-zones')).statusCode).toBe(401);
  });

  it('another store’s zone is 404 for GET, PATCH (with or without If-Match) and DELETE; countries are per store', async () => {
    const zone = await createZone(a, { countries: ['EG'] });
    const tag = String((await a.get(`/api/v1/shipping-zones/${zone.id}`)).headers.etag);
    expect((await b.get(`/api/v1/shipping-zones/${zone.id}`)).statusCode).toBe(404);
    expect((await b.patch(`/api/v1/shipping-zones/${zone.id}`, { name: 'Mine' })).statusCode).toBe(404);
    const bKey = (await createStoreWithKey(app)).key;
    expect((await patch(zone.id, { name: 'Mine' }, { 'if-match': tag }, bKey)).statusCode).toBe(404);
    expect((await b.del(`/api/v1/shipping-zones/${zone.id}`)).statusCode).toBe(404);
    expect((await a.get(`/api/v1/shipping-zones/${zone.id}`)).json().data).toEqual(zone);
    for (const id of [randomUUID(), 'not-a-uuid']) {
      expect((await a.get(`/api/v1/shipping-zones/${id}`)).statusCode).toBe(404);
      expect((await a.patch(`/api/v1/shipping-zones/${id}`, { name: 'X' })).statusCode).toBe(404);
      expect((await a.del(`/api/v1/shipping-zones/${id}`)).statusCode).toBe(404);
    }
    // Store B may ship to Egypt too: a country is unique within a store, not across stores.
    expect((await b.post('/api/v1/shipping-zones', { name: 'Egypt', countries: ['EG'] })).statusCode).toBe(
      201,
    );
  });

  it('DELETE answers 204, the zone is gone with its rates, and its countries are free', async () => {
    const zone = await createZone(a, { countries: ['MA', 'TN'], rates: [{ name: 'R', price: '1' }] });
    const res = await a.del(`/api/v1/shipping-zones/${zone.id}`);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect((await a.get(`/api/v1/shipping-zones/${zone.id}`)).statusCode).toBe(404);
    expect((await a.del(`/api/v1/shipping-zones/${zone.id}`)).statusCode).toBe(404);
    const regions = await app.services.regions.regionsOf(storeA);
    expect(regions.zones.some((z) => z.id === zone.id)).toBe(false);
    expect((await a.post('/api/v1/shipping-zones', { name: 'Maghreb', countries: ['TN'] })).statusCode).toBe(
      201,
    );
  });
});

describe('the pricing path’s cached view (RegionsPort)', () => {
  it('every write through the API is seen by the next regionsOf', async () => {
    const { store, key } = await createStoreWithKey(app);
    const api = client(app, key);
    const regionsOf = () => app.services.regions.regionsOf(store.id);
    expect(await regionsOf()).toEqual({ zones: [], taxRegions: [] });
    // Read again: served from the cache, the same answer.
    expect(await regionsOf()).toBe(await regionsOf());

    const zone = await createZone(api, {
      name: 'EU',
      countries: ['DE', 'FR'],
      rates: [{ name: 'Std', price: '4.90', free_above: '50', delivery_days_min: 1, delivery_days_max: 3 }],
    });
    const rate = zone.rates[0] as RateData;
    expect((await regionsOf()).zones).toEqual([
      {
        id: zone.id,
        name: 'EU',
        countries: ['DE', 'FR'],
        rates: [
          {
            id: rate.id,
            zoneId: zone.id,
            name: 'Std',
            price: 490,
            minSubtotal: null,
            maxSubtotal: null,
            minWeightGrams: null,
            maxWeightGrams: null,
            freeAbove: 5000,
            deliveryDaysMin: 1,
            deliveryDaysMax: 3,
          },
        ],
      },
    ]);

    await api.patch(`/api/v1/shipping-zones/${zone.id}`, {
      rates: [{ id: rate.id, name: 'Std', price: '5.90' }],
    });
    expect((await regionsOf()).zones[0]?.rates[0]).toMatchObject({
      id: rate.id,
      price: 590,
      freeAbove: null,
    });
    await api.patch(`/api/v1/shipping-zones/${zone.id}`, { countries: ['FR'] });
    expect((await regionsOf()).zones[0]?.countries).toEqual(['FR']);
    await api.del(`/api/v1/shipping-zones/${zone.id}`);
    expect((await regionsOf()).zones).toEqual([]);
  });

  it('a refused write leaves the cached view as it was', async () => {
    const { store, key } = await createStoreWithKey(app);
    const api = client(app, key);
    await createZone(api, { name: 'Home', countries: ['US'] });
    const before = await app.services.regions.regionsOf(store.id);
    expect((await api.post('/api/v1/shipping-zones', { name: 'Dup', countries: ['US'] })).statusCode).toBe(
      409,
    );
    expect(await app.services.regions.regionsOf(store.id)).toEqual(before);
  });
});

describe('OpenAPI document', () => {
  it('declares the zones’ and tax regions’ operations with their statuses, If-Match and ETag', async () => {
    const doc = (await app.server.inject({ method: 'GET', url: '/openapi.json' })).json();
    for (const path of ['/api/v1/shipping-zones/{id}', '/api/v1/tax-regions/{id}']) {
      const op = doc.paths[path].patch;
      for (const status of ['200', '400', '403', '404', '409', '412'])
        expect(op.responses[status], status).toBeDefined();
      expect(op.parameters.map((p: { name: string }) => p.name)).toContain('If-Match');
      expect(op.responses['200'].headers.ETag).toBeDefined();
      expect(doc.paths[path].get.responses['200'].headers.ETag).toBeDefined();
      expect(doc.paths[path].delete.responses['204']).toBeDefined();
    }
    for (const path of ['/api/v1/shipping-zones', '/api/v1/tax-regions']) {
      expect(doc.paths[path].post.responses['409']).toBeDefined();
      expect(doc.paths[path].get.responses['200']).toBeDefined();
    }
  });
});
