import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLogRetention } from '../../src/modules/audit/index.js';
import { newId } from '../../src/platform/ids.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { type Client, client, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';

/** GET /api/v1/audit-log: filters, cursor pages newest first, tenancy, bad input; pruning after 365 days. */
let app: TestApp;
let a: Client;
let b: Client;
let storeA: string;
let storeB: string;
let keyA: string;
let otherKeyA: string;
const DAY = 86_400_000;

const db = () => app.database.db;

/** Entries written straight into the table, `daysAgo` old (ids in time order, as the app's are). */
async function insertEntries(
  storeId: string,
  entries: Array<{ actorId?: string; type?: string; id?: string; daysAgo?: number; action?: string }>,
) {
  for (const e of entries) {
    await db()
      .insertInto('audit_log')
      .values({
        id: newId(),
        store_id: storeId,
        actor_type: 'api_key',
        actor_id: e.actorId ?? null,
        actor_name: 'seed',
        action: e.action ?? `${e.type ?? 'product'}.update`,
        resource_type: e.type ?? 'product',
        resource_id: e.id ?? null,
        ip: '127.0.0.1',
        created_at: new Date(Date.now() - (e.daysAgo ?? 0) * DAY),
      })
      .execute();
  }
}

beforeAll(async () => {
  app = await buildTestApp({ config: UNLIMITED });
  const sa = await createStoreWithKey(app);
  const sb = await createStoreWithKey(app);
  storeA = sa.store.id;
  storeB = sb.store.id;
  keyA = sa.keyId;
  a = client(app, sa.key);
  b = client(app, sb.key);
  otherKeyA = (await app.services.stores.createApiKey(storeA, { scopes: ['products:write'] })).id;
  // Store A: 5 product entries of key A about p1, 3 order entries of the other key about o1; B: 2.
  await insertEntries(storeA, [
    ...Array.from({ length: 5 }, () => ({ actorId: keyA, type: 'product', id: 'p1', daysAgo: 3 })),
    ...Array.from({ length: 3 }, () => ({ actorId: otherKeyA, type: 'order', id: 'o1', daysAgo: 1 })),
  ]);
  await insertEntries(storeB, [
    { type: 'product', id: 'p1' },
    { type: 'product', id: 'p1' },
  ]);
});
afterAll(() => app.close());

const list = async (api: Client, query = '') => {
  const res = await api.get(`/api/v1/audit-log${query}`);
  return { res, body: res.json() };
};

describe('GET /api/v1/audit-log', () => {
  it('answers the store entries newest first in the contract shape', async () => {
    const { res, body } = await list(a);
    expect(res.statusCode).toBe(200);
    expect(body.data).toHaveLength(8);
    expect(body.data[0]).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      actor: { type: 'api_key', id: otherKeyA, name: 'seed' },
      action: 'order.update',
      resource_type: 'order',
      resource_id: 'o1',
      ip: '127.0.0.1',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    const ids = body.data.map((e: { id: string }) => e.id);
    expect(ids).toEqual([...ids].sort().reverse());
    expect(body.next_cursor).toBeNull();
    expect(body.meta.pagination).toMatchObject({ total: 8, has_next: false, next_cursor: null });
  });

  it('filters by actor, resource type, resource id and time, alone and together', async () => {
    expect((await list(a, `?actor_id=${keyA}`)).body.data).toHaveLength(5);
    expect((await list(a, '?resource_type=order')).body.data).toHaveLength(3);
    expect((await list(a, '?resource_id=p1')).body.data).toHaveLength(5);
    expect((await list(a, `?resource_type=order&actor_id=${keyA}`)).body.data).toHaveLength(0);
    const twoDaysAgo = new Date(Date.now() - 2 * DAY).toISOString();
    expect((await list(a, `?from=${twoDaysAgo}`)).body.data).toHaveLength(3);
    expect((await list(a, `?to=${twoDaysAgo}`)).body.data).toHaveLength(5);
    expect((await list(a, `?from=${twoDaysAgo}&resource_type=product`)).body.data).toHaveLength(0);
  });

  it('walks cursor pages: no entry twice, none missed, the filters bound to the cursor', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const { res, body } = await list(a, `?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.statusCode, res.body).toBe(200);
      seen.push(...body.data.map((e: { id: string }) => e.id));
      expect(body.next_cursor).toBe(body.meta.pagination.next_cursor);
      cursor = body.next_cursor;
      pages++;
    } while (cursor && pages < 10);
    expect(pages).toBe(3);
    expect(seen).toHaveLength(8);
    expect(new Set(seen).size).toBe(8);
    expect(seen).toEqual([...seen].sort().reverse());

    const first = (await list(a, '?limit=2')).body.next_cursor;
    expect((await list(a, `?limit=2&cursor=${first}&resource_type=order`)).res.statusCode).toBe(400);
    expect((await list(b, `?limit=2&cursor=${first}`)).res.statusCode).toBe(400);
  });

  it("never shows another store's entries", async () => {
    const { body } = await list(b);
    expect(body.data).toHaveLength(2);
    expect((await list(b, `?actor_id=${keyA}`)).body.data).toEqual([]);
    const fromA = (await list(a)).body.data.map((e: { id: string }) => e.id);
    expect(body.data.some((e: { id: string }) => fromA.includes(e.id))).toBe(false);
  });

  it('refuses bad input with 400 and a key without settings:read with 403', async () => {
    for (const query of [
      '?limit=0',
      '?limit=101',
      '?limit=abc',
      '?from=yesterday',
      '?to=2026-13-45T00:00:00Z',
      '?cursor=not-a-cursor',
      `?resource_type=${'x'.repeat(201)}`,
      '?actor_id=',
    ]) {
      const { res, body } = await list(a, query);
      expect(res.statusCode, query).toBe(400);
      expect(body.error.code, query).toBe('invalid_request');
    }
    const narrow = await app.services.stores.createApiKey(storeA, { scopes: ['products:read'] });
    expect((await client(app, narrow.key).get('/api/v1/audit-log')).statusCode).toBe(403);
    expect((await client(app).get('/api/v1/audit-log')).statusCode).toBe(401);
  });
});

describe('pruning', () => {
  it('deletes entries older than 365 days in batches, and only those', async () => {
    await insertEntries(storeA, [
      ...Array.from({ length: 7 }, () => ({ type: 'discount', daysAgo: 400 })),
      { type: 'discount', daysAgo: 364 },
    ]);
    await insertEntries(storeB, [{ type: 'discount', daysAgo: 366 }]);
    const count = async () =>
      Number(
        (
          await sql<{
            n: string;
          }>`SELECT count(*) AS n FROM audit_log WHERE resource_type = 'discount'`.execute(db())
        ).rows[0]?.n,
      );
    expect(await count()).toBe(9);
    const task = auditLogRetention(app.database.db, pino({ level: 'silent' }), { batchSize: 3 });
    await task.run(new AbortController().signal);
    expect(await count()).toBe(1);
    expect((await list(a, '?resource_type=discount')).body.data).toHaveLength(1);
    expect((await list(a)).body.data.length).toBeGreaterThanOrEqual(9);
  });
});
