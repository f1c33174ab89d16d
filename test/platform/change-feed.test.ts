import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChangeCounter } from '../../src/platform/change-counter.js';
import { type ChangeFeed, createChangeFeed } from '../../src/platform/change-feed.js';
import { newId } from '../../src/platform/ids.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

/**
 * The change feed's NOTIFYs: a lone change is announced within tens of milliseconds of its commit,
 * and a steady stream of changes (a busy checkout bumps its store with every order) costs at most
 * one NOTIFY per 100 ms, not one per order, while every change still reaches the other process.
 */
describe('the change feed', () => {
  let database: TestDatabase;
  let pool: pg.Pool;
  let feeds: ChangeFeed[] = [];
  const notifies: number[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    pool = new pg.Pool({ connectionString: database.url, max: 4 });
    const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
    (pool as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      if (typeof args[0] === 'string' && args[0].includes('pg_notify')) notifies.push(performance.now());
      return query(...args);
    };
  });

  afterAll(async () => {
    for (const feed of feeds) await feed.close();
    await pool?.end();
    await database?.drop();
  });

  it('announces a lone change at once and a stream of changes at most every 100 ms', async () => {
    const sender = new ChangeCounter();
    const receiver = new ChangeCounter();
    const logger = pino({ level: 'silent' });
    feeds = [
      createChangeFeed({ pool, counters: { catalog: sender }, logger }),
      createChangeFeed({ pool, counters: { catalog: receiver }, logger }),
    ];
    for (const feed of feeds) await feed.start();
    const store = newId();

    const before = receiver.version(store);
    const bumped = performance.now();
    sender.onCommittedBump?.(store);
    while (receiver.version(store) === before) {
      expect(performance.now() - bumped).toBeLessThan(1_000);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(notifies).toHaveLength(1);

    // 100 orders a second for a second, each bumping the store.
    notifies.length = 0;
    const started = performance.now();
    let last = receiver.version(store);
    let seen = 0;
    for (let n = 0; n < 100; n++) {
      sender.onCommittedBump?.(store);
      await new Promise((resolve) => setTimeout(resolve, 10));
      if (receiver.version(store) !== last) {
        last = receiver.version(store);
        seen++;
      }
    }
    const elapsed = performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 250));
    // One NOTIFY per 100 ms of the stream, and one for its tail.
    expect(notifies.length).toBeLessThanOrEqual(Math.ceil(elapsed / 100) + 2);
    expect(notifies.length).toBeGreaterThanOrEqual(3);
    for (let i = 1; i < notifies.length; i++)
      expect((notifies[i] ?? 0) - (notifies[i - 1] ?? 0)).toBeGreaterThanOrEqual(95);
    // The last bump reached the other process too.
    expect(seen).toBeGreaterThan(0);
    expect(receiver.version(store)).not.toBe(last);
  });

  it('carries several counters over one connection, each bump to its own counter', async () => {
    // The pool holds four connections: the first test's feeds give theirs back.
    for (const feed of feeds) await feed.close();
    const logger = pino({ level: 'silent' });
    const sent = { catalog: new ChangeCounter(), regions: new ChangeCounter() };
    const got = { catalog: new ChangeCounter(), regions: new ChangeCounter() };
    const pair = [
      createChangeFeed({ pool, counters: sent, logger, channel: 'emporium_test_pair' }),
      createChangeFeed({ pool, counters: got, logger, channel: 'emporium_test_pair' }),
    ];
    feeds = pair;
    for (const feed of pair) await feed.start();
    const store = newId();
    const catalogBefore = got.catalog.version(store);
    const regionsBefore = got.regions.version(store);
    sent.regions.onCommittedBump?.(store);
    const started = performance.now();
    while (got.regions.version(store) === regionsBefore) {
      expect(performance.now() - started).toBeLessThan(1_000);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(got.catalog.version(store)).toBe(catalogBefore);
    const listeners = await pool.query(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%emporium_test_pair%'",
    );
    expect(listeners.rows[0].n).toBe(2);
  });
});
