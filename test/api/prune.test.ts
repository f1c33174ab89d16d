import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/platform/ids.js';
import { pruneExpiredRows, startBackgroundWorker } from '../../src/worker.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createCustomers, createStoreWithKey } from '../helpers/factories.js';

/**
 * The background worker's pruning of expired rows, on a real database. Every DELETE statement on the
 * pruned tables is counted by statement-level triggers (created here, in this file's own database), so
 * the batch bound is checked on what PostgreSQL actually ran.
 */
let app: TestApp;
let storeId: string;
let customerId: string;
let adminUserId: string;
let operatorId: string;

const TABLES = [
  'idempotency_keys',
  'customer_login_codes',
  'customer_sessions',
  'admin_sessions',
  'operator_sessions',
] as const;
type Table = (typeof TABLES)[number];

const db = () => app.database.db;
const hour = 3600_000;
const ago = (ms: number) => new Date(Date.now() - ms);
const hash = () => randomBytes(32);

beforeAll(async () => {
  app = await buildTestApp();
  const { store } = await createStoreWithKey(app);
  storeId = store.id;
  const [customer] = await createCustomers(app, storeId, 1);
  customerId = customer?.id ?? '';
  const admin = await app.services.stores.createAdminUser({
    email: `owner-${Date.now()}@example.com`,
    password: 'a long enough password',
    storeSlug: store.slug,
  });
  adminUserId = admin.id;
  operatorId = (
    await app.services.operators.createOperator({
      email: `operator-${Date.now()}@example.com`,
      password: 'a long enough password',
    })
  ).id;
  await sql`CREATE TABLE prune_statements (table_name text NOT NULL, row_count integer NOT NULL)`.execute(
    db(),
  );
  await sql`
    CREATE FUNCTION count_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO prune_statements SELECT TG_TABLE_NAME, count(*) FROM deleted HAVING count(*) > 0;
      RETURN NULL;
    END $$`.execute(db());
  for (const table of TABLES)
    await sql`CREATE TRIGGER ${sql.raw(`${table}_count_deleted`)} AFTER DELETE ON ${sql.table(table)}
      REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION count_deleted()`.execute(db());
});
afterAll(() => app.close());

/** The live rows seeded so far (ids; keys for idempotency_keys): what must stay. */
const kept: Record<Table, string[]> = {
  idempotency_keys: [],
  customer_login_codes: [],
  customer_sessions: [],
  admin_sessions: [],
  operator_sessions: [],
};

/** `expired` rows past their time and `live` ones still valid, in each table. */
async function seed(expired: number, live: number) {
  const rows = (count: number, make: (i: number) => void) => {
    for (let i = 0; i < count; i++) make(i);
  };
  const keys: { store_id: string; key: string; request_hash: string; created_at: Date }[] = [];
  const codes: { id: string; store_id: string; email: string; code_hash: Buffer; expires_at: Date }[] = [];
  const sessions: {
    id: string;
    store_id: string;
    customer_id: string;
    token_hash: Buffer;
    expires_at: Date;
  }[] = [];
  const admins: {
    id: string;
    admin_user_id: string;
    store_id: string;
    token_hash: Buffer;
    expires_at: Date;
  }[] = [];
  const operators: { id: string; operator_id: string; token_hash: Buffer; expires_at: Date }[] = [];
  const tag = randomBytes(4).toString('hex');
  for (const [count, isLive] of [
    [expired, false],
    [live, true],
  ] as const) {
    rows(count, (i) => {
      const key = `key-${tag}-${isLive}-${i}`;
      // Keys live 24 hours from their creation; one 23 hours old is still live.
      keys.push({
        store_id: storeId,
        key,
        request_hash: 'h',
        created_at: ago(isLive ? 23 * hour : 25 * hour),
      });
      if (isLive) kept.idempotency_keys.push(key);
      // Codes are kept a day after they expire: one expired an hour ago is kept.
      const code = { id: newId(), store_id: storeId, email: `${tag}@example.com`, code_hash: hash() };
      codes.push({ ...code, expires_at: isLive ? ago(hour) : ago(25 * hour) });
      if (isLive) kept.customer_login_codes.push(code.id);
      const session = { id: newId(), store_id: storeId, customer_id: customerId, token_hash: hash() };
      sessions.push({ ...session, expires_at: isLive ? new Date(Date.now() + hour) : ago(1000) });
      if (isLive) kept.customer_sessions.push(session.id);
      const admin = { id: newId(), admin_user_id: adminUserId, store_id: storeId, token_hash: hash() };
      admins.push({ ...admin, expires_at: isLive ? new Date(Date.now() + hour) : ago(1000) });
      if (isLive) kept.admin_sessions.push(admin.id);
      const operator = { id: newId(), operator_id: operatorId, token_hash: hash() };
      operators.push({ ...operator, expires_at: isLive ? new Date(Date.now() + hour) : ago(1000) });
      if (isLive) kept.operator_sessions.push(operator.id);
    });
  }
  for (const [table, all] of [
    ['idempotency_keys', keys],
    ['customer_login_codes', codes],
    ['customer_sessions', sessions],
    ['admin_sessions', admins],
    ['operator_sessions', operators],
  ] as const) {
    for (let i = 0; i < all.length; i += 1000)
      await db()
        .insertInto(table)
        .values(all.slice(i, i + 1000) as never)
        .execute();
  }
}

/** What is left in each table (ids; keys for idempotency_keys). */
async function remaining(): Promise<Record<Table, string[]>> {
  const ids = async (table: Exclude<Table, 'idempotency_keys'>) =>
    (await db().selectFrom(table).select('id').execute()).map((r) => r.id).sort();
  return {
    idempotency_keys: (await db().selectFrom('idempotency_keys').select('key').execute())
      .map((r) => r.key)
      .sort(),
    customer_login_codes: await ids('customer_login_codes'),
    customer_sessions: await ids('customer_sessions'),
    admin_sessions: await ids('admin_sessions'),
    operator_sessions: await ids('operator_sessions'),
  };
}

const sortedKept = () =>
  Object.fromEntries(Object.entries(kept).map(([table, ids]) => [table, [...ids].sort()]));

async function statements() {
  const { rows } = await sql<{
    table_name: Table;
    row_count: number;
  }>`SELECT table_name, row_count FROM prune_statements`.execute(db());
  return rows;
}

describe('pruning of expired rows by the background worker', () => {
  it('at start, the worker deletes the expired rows of each table in batches; live rows stay', async () => {
    await sql`TRUNCATE prune_statements`.execute(db());
    await seed(5, 3);
    const lines: string[] = [];
    const logger = pino(
      { level: 'info' },
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(chunk.toString('utf8'));
          done();
        },
      }),
    );
    const worker = startBackgroundWorker({
      config: app.config,
      db: db(),
      pool: app.database.pool,
      logger,
      prune: { batchSize: 2 },
    });
    try {
      for (let i = 0; ; i++) {
        const left = await remaining();
        if (TABLES.every((table) => left[table].length === kept[table].length)) break;
        if (i > 200) throw new Error(`not pruned: ${JSON.stringify(left)}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    } finally {
      await worker.stop();
    }
    expect(await remaining()).toEqual(sortedKept());
    // 5 expired rows at 2 a statement: 2 + 2 + 1, never more than 2 at once, in every table.
    const ran = await statements();
    for (const table of TABLES)
      expect(
        ran.filter((s) => s.table_name === table).map((s) => s.row_count),
        table,
      ).toEqual([2, 2, 1]);
    const logged = lines.map((line) => JSON.parse(line) as { msg: string; level: number; deleted?: unknown });
    expect(logged.find((line) => line.msg === 'expired rows pruned')?.deleted).toEqual({
      idempotency_keys: 5,
      customer_login_codes: 5,
      customer_sessions: 5,
      admin_sessions: 5,
      operator_sessions: 5,
    });
    expect(logged.filter((line) => line.level >= 40)).toEqual([]);
  });

  it('several workers pruning at once share the work: every expired row deleted once, no error', async () => {
    await sql`TRUNCATE prune_statements`.execute(db());
    await seed(3000, 10);
    const results = await Promise.all([1, 2, 3].map(() => pruneExpiredRows(db(), { batchSize: 250 })));
    expect(await remaining()).toEqual(sortedKept());
    for (const table of TABLES) {
      const deleted = results.reduce((sum, result) => sum + result[table].deleted, 0);
      expect(deleted, table).toBe(3000);
      const counts = (await statements()).filter((s) => s.table_name === table).map((s) => s.row_count);
      expect(Math.max(...counts), table).toBeLessThanOrEqual(250);
      expect(
        counts.reduce((sum, n) => sum + n, 0),
        table,
      ).toBe(3000);
    }
    // Nothing left to do: one statement per table, deleting nothing.
    const again = await pruneExpiredRows(db(), { batchSize: 250 });
    for (const table of TABLES) expect(again[table]).toEqual({ deleted: 0, batches: 1 });
  });
});
