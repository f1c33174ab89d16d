import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseHandle, openDatabase } from '../../src/platform/db/database.js';
import {
  afterCommit,
  inRolledBackTransaction,
  inTransaction,
  TRANSACTION_ATTEMPTS,
} from '../../src/platform/db/transaction.js';
import { toAppError } from '../../src/platform/http/errors.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

/**
 * inTransaction runs the whole transaction again when PostgreSQL ends it with a deadlock (40P01)
 * or a serialization failure (40001), a few times, and gives up with the error (503) after that.
 */
describe('inTransaction', () => {
  let database: TestDatabase;
  let handle: DatabaseHandle;

  beforeAll(async () => {
    database = await createTestDatabase();
    handle = openDatabase(database.url, { max: 4 });
    await sql`CREATE TABLE tx_probe (id int PRIMARY KEY, hits int NOT NULL DEFAULT 0)`.execute(handle.db);
    await sql`INSERT INTO tx_probe (id) VALUES (1), (2)`.execute(handle.db);
  });
  afterAll(async () => {
    await handle?.close();
    await database?.drop();
  });

  const hit = (id: number) => sql`UPDATE tx_probe SET hits = hits + 1 WHERE id = ${id}`;
  const hits = async () =>
    (await sql<{ id: number; hits: number }>`SELECT id, hits FROM tx_probe ORDER BY id`.execute(handle.db))
      .rows;

  it('two transactions that deadlock on purpose both commit: the loser runs again', async () => {
    await sql`UPDATE tx_probe SET hits = 0`.execute(handle.db);
    // Each locks its first row, waits until the other holds its own, then asks for the other's.
    let held = 0;
    const bothHold = new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (held >= 2) {
          clearInterval(check);
          resolve();
        }
      }, 5);
    });
    const attempts = { a: 0, b: 0 };
    const crossing = (name: 'a' | 'b', first: number, second: number) =>
      inTransaction(handle.db, async (tx) => {
        attempts[name]++;
        await hit(first).execute(tx);
        if (attempts[name] === 1) {
          held++;
          await bothHold;
        }
        await hit(second).execute(tx);
        return name;
      });
    const results = await Promise.all([crossing('a', 1, 2), crossing('b', 2, 1)]);
    expect(results).toEqual(['a', 'b']);
    // One of them was chosen as the deadlock victim and ran a second time; the other ran once.
    expect(attempts.a + attempts.b).toBe(3);
    // The victim's first attempt was rolled back: every row counts exactly the two commits.
    expect(await hits()).toEqual([
      { id: 1, hits: 2 },
      { id: 2, hits: 2 },
    ]);
  });

  it('a serialization failure (40001) is retried; the rolled-back attempt leaves nothing', async () => {
    await sql`UPDATE tx_probe SET hits = 0`.execute(handle.db);
    let attempts = 0;
    const result = await inTransaction(handle.db, async (tx) => {
      attempts++;
      await hit(1).execute(tx);
      if (attempts < 3)
        await sql`DO $$ BEGIN RAISE EXCEPTION 'forced' USING ERRCODE = '40001'; END $$`.execute(tx);
      return 'done';
    });
    expect(result).toBe('done');
    expect(attempts).toBe(3);
    expect((await hits())[0]).toEqual({ id: 1, hits: 1 });
  });

  it('gives up after TRANSACTION_ATTEMPTS with the error, which answers 503 unavailable', async () => {
    let attempts = 0;
    const failure = await inTransaction(handle.db, async (tx) => {
      attempts++;
      await sql`DO $$ BEGIN RAISE EXCEPTION 'forced' USING ERRCODE = '40P01'; END $$`.execute(tx);
    }).catch((error: unknown) => error);
    expect(attempts).toBe(TRANSACTION_ATTEMPTS);
    expect((failure as { code?: string }).code).toBe('40P01');
    const answer = toAppError(failure);
    expect([answer.statusCode, answer.code, answer.headers?.['retry-after']]).toEqual([
      503,
      'unavailable',
      '1',
    ]);
  });

  it('does not retry other errors', async () => {
    let attempts = 0;
    const failure = await inTransaction(handle.db, async (tx) => {
      attempts++;
      await sql`SELECT 1 / 0`.execute(tx);
    }).catch((error: unknown) => error);
    expect(attempts).toBe(1);
    expect((failure as { code?: string }).code).toBe('22012');
  });

  it("inRolledBackTransaction answers the work's result and leaves nothing: no row, no after-commit effect", async () => {
    await sql`UPDATE tx_probe SET hits = 0`.execute(handle.db);
    let effects = 0;
    const seen = await inRolledBackTransaction(handle.db, async (tx) => {
      await hit(1).execute(tx);
      afterCommit(() => effects++);
      return (await sql<{ hits: number }>`SELECT hits FROM tx_probe WHERE id = 1`.execute(tx)).rows[0]?.hits;
    });
    expect(seen).toBe(1);
    expect(effects).toBe(0);
    expect((await hits())[0]).toEqual({ id: 1, hits: 0 });
    // The work's own errors come out as they are.
    const failure = await inRolledBackTransaction(handle.db, async (tx) => {
      await sql`SELECT 1 / 0`.execute(tx);
    }).catch((error: unknown) => error);
    expect((failure as { code?: string }).code).toBe('22012');
  });
});
