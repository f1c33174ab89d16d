import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseHandle, openDatabase } from '../../src/platform/db/database.js';
import { prepared } from '../../src/platform/db/prepared.js';
import { readTogether } from '../../src/platform/db/read-together.js';
import { inTransaction } from '../../src/platform/db/transaction.js';
import { newId } from '../../src/platform/ids.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

/**
 * Marked statements (checkout's readTogether and stock statement) are sent named, so PostgreSQL
 * parses and plans each text once per connection. These check that they are, that nothing else is,
 * that results are the same at every execution, and that a table changing under a prepared
 * statement (a column added by a migration while the process runs) does not break it.
 */
describe('prepared statements', () => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let storeId: string;

  /** The prepared statements of the pool's one connection (max 1), read on that connection. */
  const preparedTexts = async () =>
    (
      await sql<{ statement: string }>`SELECT statement FROM pg_prepared_statements`.execute(handle.db)
    ).rows.map((r) => r.statement);

  beforeAll(async () => {
    database = await createTestDatabase();
    handle = openDatabase(database.url, { max: 1 });
    storeId = newId();
    await handle.db
      .insertInto('stores')
      .values({ id: storeId, slug: `s-${storeId.slice(-8)}`, name: 'Prepared' } as never)
      .execute();
  });

  afterAll(async () => {
    await handle?.close();
    await database?.drop();
  });

  const readStore = (db = handle.db) =>
    readTogether(db, {
      store: { query: db.selectFrom('stores').selectAll().where('id', '=', storeId).compile() },
      none: { query: CompiledQuery.raw('SELECT 1 AS one WHERE false', []) },
    });

  it('sends a readTogether named, once per connection, with the same rows every time', async () => {
    const first = await readStore();
    const second = await inTransaction(handle.db, (tx) => readStore(tx));
    expect(first.store).toHaveLength(1);
    expect(second).toEqual(first);
    const texts = await preparedTexts();
    expect(texts.filter((t) => t.includes('SELECT 1 AS one WHERE false'))).toHaveLength(1);
  });

  it('leaves unmarked statements unnamed', async () => {
    await sql`SELECT ${'unmarked'}::text AS probe`.execute(handle.db);
    expect((await preparedTexts()).some((t) => t.includes('AS probe'))).toBe(false);
    const marked = prepared(sql`SELECT ${'marked'}::text AS probe`.compile(handle.db));
    expect((await handle.db.executeQuery(marked)).rows).toEqual([{ probe: 'marked' }]);
    expect((await preparedTexts()).some((t) => t.includes('AS probe'))).toBe(true);
  });

  it('keeps working when a table it reads gains a column', async () => {
    await readStore();
    await sql`ALTER TABLE stores ADD COLUMN prepared_probe text DEFAULT 'added'`.execute(handle.db);
    try {
      const after = await readStore();
      expect((after.store?.[0] as { prepared_probe?: string } | undefined)?.prepared_probe).toBe('added');
    } finally {
      await sql`ALTER TABLE stores DROP COLUMN prepared_probe`.execute(handle.db);
    }
  });
});
