import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import {
  type Client,
  client,
  createCategory,
  createProduct,
  UNLIMITED,
} from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';

let app: TestApp;
let a: Client;
let b: Client;

beforeAll(async () => {
  app = await buildTestApp({ config: UNLIMITED });
  a = client(app, (await createStoreWithKey(app)).key);
  b = client(app, (await createStoreWithKey(app)).key);
});
afterAll(() => app.close());

const getCategory = async (api: Client, id: string) =>
  (await api.get(`/api/v1/categories/${id}`)).json().data;

describe('POST /api/v1/categories', () => {
  it('answers 201 { data } with the contract fields, the slug generated from the name', async () => {
    const res = await a.post('/api/v1/categories', { name: 'Summer Hats' });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(Object.keys(body)).toEqual(['data']);
    expect(body.data).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Summer Hats',
      slug: 'summer-hats',
      description: '',
      parent_id: null,
      position: 0,
      product_count: 0,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updated_at: body.data.created_at,
    });
    expect(await getCategory(a, body.data.id)).toEqual(body.data);
  });

  it('stores the given slug, description, parent and position', async () => {
    const parent = await createCategory(a, { name: 'Clothing' });
    const child = await createCategory(a, {
      name: 'Coats',
      slug: 'winter-coats',
      description: 'Warm',
      parent_id: parent.id,
      position: 4,
    });
    expect(child).toMatchObject({
      slug: 'winter-coats',
      description: 'Warm',
      parent_id: parent.id,
      position: 4,
    });
  });

  it('refuses a duplicate slug with 409 conflict; another store may use it', async () => {
    await createCategory(a, { name: 'Bags', slug: 'bags' });
    const res = await a.post('/api/v1/categories', { name: 'Other bags', slug: 'bags' });
    expect(res.statusCode).toBe(409);
    expect(res.json().error.code).toBe('conflict');
    expect((await createCategory(b, { name: 'Bags', slug: 'bags' })).slug).toBe('bags');
  });

  it('de-duplicates a slug it generates (same name under two parents)', async () => {
    const men = await createCategory(a, { name: 'Men' });
    const women = await createCategory(a, { name: 'Women' });
    const first = await createCategory(a, { name: 'Shoes', parent_id: men.id });
    const second = await createCategory(a, { name: 'Shoes', parent_id: women.id });
    expect([first.slug, second.slug]).toEqual(['shoes', 'shoes-2']);
  });

  it('gives parallel creations of one name distinct generated slugs', async () => {
    // Under five parents: one name twice under one parent is refused (below).
    const parents = await Promise.all(Array.from({ length: 5 }, () => createCategory(a)));
    const answers = await Promise.all(
      parents.map((parent) => a.post('/api/v1/categories', { name: 'Parallel Sale', parent_id: parent.id })),
    );
    expect(answers.map((r) => r.statusCode)).toEqual(Array(5).fill(201));
    expect(answers.map((r) => r.json().data.slug).sort()).toEqual([
      'parallel-sale',
      'parallel-sale-2',
      'parallel-sale-3',
      'parallel-sale-4',
      'parallel-sale-5',
    ]);
  });

  it('refuses a second category of the same name (any case) under the same parent with 409', async () => {
    const parent = await createCategory(a);
    await createCategory(a, { name: 'Rain Boots', parent_id: parent.id });
    for (const name of ['Rain Boots', 'rain boots', '  RAIN BOOTS ']) {
      const res = await a.post('/api/v1/categories', { name, parent_id: parent.id });
      expect(res.statusCode, name).toBe(409);
      expect(res.json().error).toMatchObject({ code: 'conflict' });
      expect(res.json().error.message).toMatch(/Rain Boots/);
    }
    // Elsewhere in the tree, and in another store, the name is free.
    expect((await createCategory(a, { name: 'Rain Boots' })).parent_id).toBeNull();
    await expect(createCategory(a, { name: 'Rain Boots' })).rejects.toThrow(/409/);
    expect((await createCategory(b, { name: 'Rain Boots', slug: 'rain-boots' })).name).toBe('Rain Boots');
  });

  it('lets one of parallel creations of one name under one parent through, the others 409', async () => {
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => a.post('/api/v1/categories', { name: 'Flash Deals' })),
    );
    expect(answers.map((r) => r.statusCode).sort()).toEqual([201, 409, 409, 409, 409]);
  });

  it('refuses a rename or a move onto a sibling’s name; other edits of an old duplicate still save', async () => {
    const parent = await createCategory(a);
    const socks = await createCategory(a, { name: 'Socks', parent_id: parent.id });
    const tights = await createCategory(a, { name: 'Tights', parent_id: parent.id });
    const rename = await a.patch(`/api/v1/categories/${tights.id}`, { name: 'SOCKS' });
    expect(rename.statusCode, rename.body).toBe(409);
    const elsewhere = await createCategory(a, { name: 'Socks' });
    const move = await a.patch(`/api/v1/categories/${elsewhere.id}`, { parent_id: parent.id });
    expect(move.statusCode, move.body).toBe(409);
    expect((await getCategory(a, tights.id)).name).toBe('Tights');
    // Its own name again (another case) is no clash with itself.
    expect((await a.patch(`/api/v1/categories/${socks.id}`, { name: 'socks' })).statusCode).toBe(200);
    // Duplicates written before this rule (here straight into the table) stay editable.
    await app.database.db
      .updateTable('categories')
      .set({ name: 'socks' })
      .where('id', '=', tights.id)
      .execute();
    const edit = await a.patch(`/api/v1/categories/${tights.id}`, { name: 'socks', description: 'kept' });
    expect(edit.statusCode, edit.body).toBe(200);
    expect(edit.json().data.description).toBe('kept');
  });

  it.each([
    ['an unknown parent', () => ({ name: 'X', parent_id: randomUUID() }), 'parent_id'],
    ['a malformed parent', () => ({ name: 'X', parent_id: 'abc' }), 'parent_id'],
    ['a missing name', () => ({ slug: 'x' }), 'name'],
    ['an empty name', () => ({ name: '' }), 'name'],
    ['a blank name', () => ({ name: '  ' }), 'name'],
    ['an unknown field', () => ({ name: 'X', colour: 'red' }), 'colour'],
    ['a bad slug', () => ({ name: 'X', slug: 'Bad Slug' }), 'slug'],
    ['a negative position', () => ({ name: 'X', position: -1 }), 'position'],
  ])('refuses %s with 400 invalid_request', async (_, body, field) => {
    const res = await a.post('/api/v1/categories', body());
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('invalid_request');
    expect(res.json().error.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('refuses a parent of another store with 400', async () => {
    const foreign = await createCategory(b);
    const res = await a.post('/api/v1/categories', { name: 'X', parent_id: foreign.id });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details[0].field).toBe('parent_id');
  });
});

describe('PATCH /api/v1/categories/{id}', () => {
  it('updates the given fields', async () => {
    const parent = await createCategory(a);
    const c = await createCategory(a, { name: 'Old name', slug: 'old-name' });
    const res = await a.patch(`/api/v1/categories/${c.id}`, {
      name: 'New name',
      description: 'Now described',
      position: 2,
      parent_id: parent.id,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({
      ...c,
      name: 'New name',
      description: 'Now described',
      position: 2,
      parent_id: parent.id,
      updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(res.json().data.updated_at).not.toBe(c.updated_at);
    const moved = await a.patch(`/api/v1/categories/${c.id}`, { parent_id: null, slug: 'renamed' });
    expect(moved.json().data).toMatchObject({ parent_id: null, slug: 'renamed', name: 'New name' });
  });

  it('refuses cycles: a category under itself or under its descendants', async () => {
    const top = await createCategory(a);
    const middle = await createCategory(a, { parent_id: top.id });
    const bottom = await createCategory(a, { parent_id: middle.id });
    for (const [id, parentId] of [
      [top.id, top.id],
      [top.id, bottom.id],
      [top.id, middle.id],
      [middle.id, bottom.id],
    ]) {
      const res = await a.patch(`/api/v1/categories/${id}`, { parent_id: parentId });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.details).toEqual([{ field: 'parent_id', message: 'cycle' }]);
    }
    expect((await getCategory(a, top.id)).parent_id).toBeNull();
    // Moving a leaf elsewhere is fine.
    expect((await a.patch(`/api/v1/categories/${bottom.id}`, { parent_id: top.id })).statusCode).toBe(200);
  });

  it('refuses an unknown parent, a taken slug and an empty body', async () => {
    await createCategory(a, { slug: 'taken-category' });
    const c = await createCategory(a);
    const unknown = await a.patch(`/api/v1/categories/${c.id}`, { parent_id: randomUUID() });
    expect(unknown.statusCode).toBe(400);
    const taken = await a.patch(`/api/v1/categories/${c.id}`, { slug: 'taken-category' });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().error.code).toBe('conflict');
    expect((await a.patch(`/api/v1/categories/${c.id}`, {})).statusCode).toBe(400);
    expect(await getCategory(a, c.id)).toEqual(c);
  });
});

describe('product_count and DELETE', () => {
  it('counts the category’s products; deleting it keeps them and lifts its children to the top', async () => {
    const c = await createCategory(a);
    const child = await createCategory(a, { parent_id: c.id });
    const other = await createCategory(a);
    const p1 = await createProduct(a, { category_ids: [c.id, other.id] });
    const p2 = await createProduct(a, { category_ids: [c.id], status: 'draft' });
    await createProduct(a, { category_ids: [other.id] });
    expect((await getCategory(a, c.id)).product_count).toBe(2);
    expect((await getCategory(a, other.id)).product_count).toBe(2);

    const res = await a.del(`/api/v1/categories/${c.id}`);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect((await a.get(`/api/v1/categories/${c.id}`)).statusCode).toBe(404);
    expect((await a.del(`/api/v1/categories/${c.id}`)).statusCode).toBe(404);

    const kept1 = (await a.get(`/api/v1/products/${p1.id}`)).json().data;
    expect(kept1.category_ids).toEqual([other.id]);
    expect((await a.get(`/api/v1/products/${p2.id}`)).json().data.category_ids).toEqual([]);
    expect((await getCategory(a, child.id)).parent_id).toBeNull();
    expect((await getCategory(a, other.id)).product_count).toBe(2);
  });

  it('drops a deleted product from the count', async () => {
    const c = await createCategory(a);
    const p = await createProduct(a, { category_ids: [c.id] });
    expect((await getCategory(a, c.id)).product_count).toBe(1);
    await a.del(`/api/v1/products/${p.id}`);
    expect((await getCategory(a, c.id)).product_count).toBe(0);
  });
});

describe('GET /api/v1/categories', () => {
  it('lists by position, then name, with pagination and a parent filter', async () => {
    const store = client(app, (await createStoreWithKey(app)).key);
    const root = await createCategory(store, { name: 'Zebra', position: 0 });
    await createCategory(store, { name: 'apple', position: 0 });
    await createCategory(store, { name: 'Mango', position: 1 });
    await createCategory(store, { name: 'Banana', position: 0, parent_id: root.id });
    await createCategory(store, { name: 'Cherry', position: 5, parent_id: root.id });

    const res = await store.get('/api/v1/categories');
    expect(res.statusCode).toBe(200);
    expect(res.json().data.map((c: { name: string }) => c.name)).toEqual([
      'apple',
      'Banana',
      'Zebra',
      'Mango',
      'Cherry',
    ]);
    expect(res.json().meta.pagination).toEqual({
      page: 1,
      limit: 20,
      total: 5,
      total_pages: 1,
      has_next: false,
      has_prev: false,
    });
    const page = (await store.get('/api/v1/categories?page=2&limit=2')).json();
    expect(page.data.map((c: { name: string }) => c.name)).toEqual(['Zebra', 'Mango']);
    expect(page.meta.pagination).toMatchObject({ total: 5, total_pages: 3, has_next: true, has_prev: true });

    const roots = (await store.get('/api/v1/categories?parent_id=root')).json();
    expect(roots.data.map((c: { name: string }) => c.name)).toEqual(['apple', 'Zebra', 'Mango']);
    expect(roots.meta.pagination.total).toBe(3);
    const children = (await store.get(`/api/v1/categories?parent_id=${root.id}`)).json();
    expect(children.data.map((c: { name: string }) => c.name)).toEqual(['Banana', 'Cherry']);
    expect(children.meta.pagination.total).toBe(2);
    expect((await store.get('/api/v1/categories?limit=0')).statusCode).toBe(400);
  });
});

describe('cross-store and scopes', () => {
  it('answers 404 to store B for store A’s category and never lists it', async () => {
    const c = await createCategory(a, { name: 'Only A' });
    for (const res of [
      await b.get(`/api/v1/categories/${c.id}`),
      await b.patch(`/api/v1/categories/${c.id}`, { name: 'Stolen' }),
      await b.del(`/api/v1/categories/${c.id}`),
    ]) {
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: { code: 'not_found', message: 'category not found' } });
    }
    expect(await getCategory(a, c.id)).toEqual(c);
    const listed = (await b.get('/api/v1/categories?limit=100')).json().data;
    expect(listed.some((x: { id: string }) => x.id === c.id)).toBe(false);
    expect((await b.get(`/api/v1/categories?parent_id=${c.id}`)).json().data).toEqual([]);
  });

  it('lets products:read list and get categories but not write them', async () => {
    const { key } = await createStoreWithKey(app, { scopes: ['products:read'] });
    const reader = client(app, key);
    expect((await reader.get('/api/v1/categories')).statusCode).toBe(200);
    const res = await reader.post('/api/v1/categories', { name: 'Nope' });
    expect(res.statusCode).toBe(403);
    expect(res.json().error.code).toBe('forbidden');
    expect((await client(app).get('/api/v1/categories')).statusCode).toBe(401);
  });
});
