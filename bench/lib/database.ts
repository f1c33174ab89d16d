import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { clusterPaths } from '../../src/platform/db/embedded/cluster-files.js';
import { openEmbeddedCluster } from '../../src/platform/db/embedded.js';

/** The PostgreSQL server a benchmark runs on, and where it came from. */
export interface BenchServer {
  /** BENCH_DATABASE_URL, TEST_DATABASE_URL, DATABASE_URL or "embedded". */
  source: string;
  /** A connection string with rights to CREATE DATABASE. */
  adminUrl: string;
  /** For the output: the URL without its password. */
  display: string;
  /** The cluster's PGDATA when the bench started it (embedded), to find and measure its processes. */
  pgdata?: string;
  close(): Promise<void>;
}

function withoutPassword(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.toString();
}

/**
 * BENCH_DATABASE_URL, else TEST_DATABASE_URL, else DATABASE_URL, else an embedded cluster started in
 * a temporary directory with the same settings `npm start` uses (removed on close).
 */
export async function openBenchServer(): Promise<BenchServer> {
  for (const name of ['BENCH_DATABASE_URL', 'TEST_DATABASE_URL', 'DATABASE_URL']) {
    const url = process.env[name]?.trim();
    if (url) return urlBenchServer(name, url);
  }
  return openEmbeddedBenchServer();
}

/** A server given by a connection string (nothing to close). */
export function urlBenchServer(source: string, url: string): BenchServer {
  return { source, adminUrl: url, display: withoutPassword(url), close: async () => {} };
}

/** An embedded cluster started in a temporary directory with `npm start`'s settings (removed on close). */
export async function openEmbeddedBenchServer(): Promise<BenchServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'emporium-bench-pg-'));
  try {
    const cluster = await openEmbeddedCluster({ dataDir, password: randomBytes(12).toString('hex') });
    return {
      source: 'embedded',
      adminUrl: cluster.adminUrl,
      display: `embedded cluster in ${dataDir} (port ${cluster.port})`,
      pgdata: clusterPaths(dataDir).pgdata,
      async close() {
        await cluster.release();
        fs.rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
}

export interface FreshDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

async function admin<T>(adminUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** An empty database of its own on the server, dropped (forcibly) afterwards. */
export async function createFreshDatabase(
  adminUrl: string,
  prefix = 'emporium_bench',
): Promise<FreshDatabase> {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  await admin(adminUrl, (c) => c.query(`CREATE DATABASE ${c.escapeIdentifier(name)}`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: () =>
      admin(adminUrl, (c) =>
        c.query(`DROP DATABASE IF EXISTS ${c.escapeIdentifier(name)} WITH (FORCE)`),
      ).then(() => undefined),
  };
}

/**
 * A named database kept between runs (a million seeded orders take minutes to make): created empty
 * when missing, dropped and recreated when `rebuild`. Returns its connection string.
 */
export async function persistentDatabase(adminUrl: string, name: string, rebuild: boolean): Promise<string> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const id = client.escapeIdentifier(name);
    if (rebuild) await client.query(`DROP DATABASE IF EXISTS ${id} WITH (FORCE)`);
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (exists.rowCount === 0) await client.query(`CREATE DATABASE ${id}`);
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

type OnExit = (label: string, step: () => Promise<unknown>) => void;

/** The bench server (see openBenchServer), named in the log and the notes, closed by `onExit`. */
export async function benchServerFor(
  log: (line: string) => void,
  notes: string[],
  onExit: OnExit,
  noteSuffix = '',
): Promise<BenchServer> {
  const target = await openBenchServer();
  onExit('database server', () => target.close());
  log(`database: ${target.source} → ${target.display}`);
  notes.push(`database: ${target.source} (${target.display})${noteSuffix}`);
  return target;
}

/** A fresh database on the bench server, both released by `onExit`. */
export async function freshBenchDatabase(
  log: (line: string) => void,
  notes: string[],
  onExit: OnExit,
  noteSuffix = '',
): Promise<FreshDatabase> {
  const target = await benchServerFor(log, notes, onExit, noteSuffix);
  const fresh = await createFreshDatabase(target.adminUrl);
  onExit('database', () => fresh.drop());
  return fresh;
}
