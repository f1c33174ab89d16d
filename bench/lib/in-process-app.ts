import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { type AppDeps, buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { MemoryRateLimitStore } from '../../src/platform/http/rate-limit.js';
import type { cleanUpStack } from './cleanup.js';
import { freshBenchDatabase } from './database.js';

/**
 * The real app in the benchmark's own process, over a fresh database (migrated) and a temporary
 * DATA_DIR (never ./data), silent, with a rate limit no load reaches; everything is undone by the
 * scenario's clean-up stack.
 */
export async function startInProcessApp(
  log: (line: string) => void,
  notes: string[],
  onExit: ReturnType<typeof cleanUpStack>['onExit'],
  poolSize: number,
) {
  const fresh = await freshBenchDatabase(log, notes, onExit);
  return { fresh, ...(await startAppOn(fresh.url, onExit, poolSize)) };
}

/** The real app as startInProcessApp starts it, over a given database (migrated here), e.g. a persistent one. */
export async function startAppOn(
  url: string,
  onExit: ReturnType<typeof cleanUpStack>['onExit'],
  poolSize: number,
  /** Deps of the app beyond the defaults (the audit bench's `auditLog: 'off'` baseline). */
  extra: Partial<AppDeps> = {},
) {
  const handle = openDatabase(url, { max: poolSize });
  onExit('app pool', () => handle.close());
  await migrateToLatest(handle.db);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'emporium-bench-data-'));
  onExit('data dir', async () => fs.rmSync(dataDir, { recursive: true, force: true }));
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    DATABASE_URL: url,
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: '0',
    RATE_LIMIT_PER_MINUTE: '1000000000',
  });
  const app = await buildApp({
    config,
    db: handle.db,
    // As `serve`: catalogue changes are exchanged with other processes (one LISTEN connection).
    pool: handle.pool,
    logger: pino({ level: 'silent' }),
    rateLimitStore: new MemoryRateLimitStore(),
    ...extra,
  });
  onExit('app', () => app.server.close());
  return { handle, app };
}
