import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { type Client, client, createProduct, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';

/**
 * Contract §12: products and variants gain `weight_grams` (integer ≥ 0, default 0; a variant
 * without one, null, weighs what its product weighs) and products gain `taxable` (default true),
 * through create, update, read and list of the merchant API.
 */
let app: TestApp;
let api: Client;
let other: Client;

beforeAll(async () => {
  app = await buildTestApp({ config: UNLIMITED });
  api = client(app, (await createStoreWithKey(app)).key);
  other = client(app, (await createStoreWithKey(app)).key);
});
afterAll(() => app.close());

const SIZES = { name: 'Size', values: ['S', 'M', 'L'] };
const fieldsOf = (res: { json: () => { error: { details?: { field: string }[] } } }) =>
  (res.json().error.details ?? []).map((d) => d.field);

async function patch(id: string, body: Record<string, unknown>) {
  const res = await api.patch(`/api/v1/products/${id}`, body);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
}

describe('weight_grams and taxable on products', () => {
  it('default to 0 and true, and are read back as sent', async () => {
    const plain = await createProduct(api);
    expect(plain).toMatchObject({ weight_grams: 0, taxable: true });
    const heavy = await createProduct(api, { weight_grams: 1250, taxable: false });
    expect(heavy).toMatchObject({ weight_grams: 1250, taxable: false });
    expect((await api.get(`/api/v1/products/${heavy.id}`)).json().data).toMatchObject({
      weight_grams: 1250,
      taxable: false,
    });
    const listed = (await api.get('/api/v1/products?limit=100')).json().data as {
      id: string;
      weight_grams: number;
      taxable: boolean;
    }[];
    expect(listed.find((p) => p.id === heavy.id)).toMatchObject({ weight_grams: 1250, taxable: false });
    expect(listed.find((p) => p.id === plain.id)).toMatchObject({ weight_grams: 0, taxable: true });
    // The list filtered by status and by text takes other statements: they carry the fields too.
    for (const query of ['status=active', `q=${encodeURIComponent(heavy.name)}`]) {
      const found = (await api.get(`/api/v1/products?${query}&limit=100`)).json().data as typeof listed;
      expect(
        found.find((p) => p.id === heavy.id),
        query,
      ).toMatchObject({ weight_grams: 1250, taxable: false });
    }
  });

  it('change through PATCH, alone or with other fields, and keep their values when not sent', async () => {
    const p = await createProduct(api, { weight_grams: 500 });
    expect(await patch(p.id, { weight_grams: 0 })).toMatchObject({ weight_grams: 0, taxable: true });
    expect(await patch(p.id, { taxable: false, weight_grams: 2_147_483_647 })).toMatchObject({
      weight_grams: 2_147_483_647,
      taxable: false,
    });
    expect(await patch(p.id, { name: 'Renamed' })).toMatchObject({
      name: 'Renamed',
      weight_grams: 2_147_483_647,
      taxable: false,
    });
    expect(await patch(p.id, { taxable: true })).toMatchObject({
      taxable: true,
      weight_grams: 2_147_483_647,
    });
  });

  it('refuse bad values with 400 naming the field, on create and update, and change nothing', async () => {
    const p = await createProduct(api, { weight_grams: 10 });
    const cases: [Record<string, unknown>, string][] = [
      [{ weight_grams: -1 }, 'weight_grams'],
      [{ weight_grams: 1.5 }, 'weight_grams'],
      [{ weight_grams: 2_147_483_648 }, 'weight_grams'],
      [{ weight_grams: 1e300 }, 'weight_grams'],
      [{ weight_grams: '100' }, 'weight_grams'],
      [{ weight_grams: null }, 'weight_grams'],
      [{ taxable: 'yes' }, 'taxable'],
      [{ taxable: 0 }, 'taxable'],
      [{ taxable: null }, 'taxable'],
    ];
    for (const [body, field] of cases) {
      const created = await api.post('/api/v1/products', { name: 'Bad', price: '1.00', ...body });
      expect(created.statusCode, `${JSON.stringify(body)}: ${created.body}`).toBe(400);
      expect(created.json().error.code).toBe('invalid_request');
      expect(fieldsOf(created), JSON.stringify(body)).toContain(field);
      const updated = await api.patch(`/api/v1/products/${p.id}`, body);
      expect(updated.statusCode, `${JSON.stringify(body)}: ${updated.body}`).toBe(400);
      expect(fieldsOf(updated), JSON.stringify(body)).toContain(field);
    }
    expect((await api.get(`/api/v1/products/${p.id}`)).json().data).toMatchObject({
      weight_grams: 10,
      taxable: true,
    });
  });
});

describe('weight_grams on variants', () => {
  it("is the variant's own weight or null (its product's), on create, read and list", async () => {
    const p = await createProduct(api, {
      weight_grams: 300,
      options: [SIZES],
      variants: [
        { options: { Size: 'S' }, weight_grams: 200 },
        { options: { Size: 'M' } },
        { options: { Size: 'L' }, weight_grams: null },
      ],
    });
    expect(p.variants.map((v) => v.weight_grams)).toEqual([200, null, null]);
    const listed = (await api.get('/api/v1/products?limit=100')).json().data as (typeof p)[];
    expect(listed.find((x) => x.id === p.id)?.variants.map((v) => v.weight_grams)).toEqual([200, null, null]);
  });

  it('changes per variant on update; a variant sent without it keeps its weight', async () => {
    const p = await createProduct(api, {
      options: [SIZES],
      variants: [{ options: { Size: 'S' }, weight_grams: 200 }, { options: { Size: 'M' } }],
    });
    const [s, m] = p.variants as { id: string }[];
    const kept = await patch(p.id, {
      variants: [
        { id: s?.id, options: { Size: 'S' } },
        { id: m?.id, options: { Size: 'M' }, weight_grams: 450 },
        { options: { Size: 'L' }, weight_grams: 0 },
      ],
    });
    expect(kept.variants.map((v: { weight_grams: number | null }) => v.weight_grams)).toEqual([200, 450, 0]);
    // null sets a variant back to its product's weight.
    const inherited = await patch(p.id, {
      variants: kept.variants.map((v: { id: string; options: Record<string, string> }, i: number) => ({
        id: v.id,
        options: v.options,
        ...(i === 0 ? { weight_grams: null } : {}),
      })),
    });
    expect(inherited.variants.map((v: { weight_grams: number | null }) => v.weight_grams)).toEqual([
      null,
      450,
      0,
    ]);
  });

  it('refuses bad weights with 400 naming the variant field', async () => {
    for (const weight of [-5, 2.5, 2_147_483_648, '12']) {
      const res = await api.post('/api/v1/products', {
        name: 'Bad variant',
        price: '1.00',
        options: [SIZES],
        variants: [{ options: { Size: 'S' } }, { options: { Size: 'M' }, weight_grams: weight }],
      });
      expect(res.statusCode, `${weight}: ${res.body}`).toBe(400);
      expect(fieldsOf(res), String(weight)).toContain('variants.1.weight_grams');
    }
  });

  it("are another store's 404, never changed through it", async () => {
    const p = await createProduct(api, { weight_grams: 5 });
    expect((await other.patch(`/api/v1/products/${p.id}`, { weight_grams: 6 })).statusCode).toBe(404);
    expect((await api.get(`/api/v1/products/${p.id}`)).json().data.weight_grams).toBe(5);
  });
});
