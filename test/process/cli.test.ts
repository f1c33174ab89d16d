import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { SCOPES } from '../../src/platform/http/scopes.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import {
  type CliResult,
  cleanupDataDir,
  type Env,
  embeddedDatabaseUrl,
  killLeftovers,
  makeDataDir,
  runCli,
  runCliJson,
  ServerProcess,
} from '../helpers/processes.js';

/**
 * Every `emporium` command as a real process with --json: on a fresh embedded cluster in a
 * temporary DATA_DIR (embedded mode), or on a fresh database through DATABASE_URL (postgres mode).
 */
const mode = inject('databaseMode');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let dataDir: string;
let env: Env;
let testDatabase: TestDatabase | undefined;

beforeAll(async () => {
  dataDir = makeDataDir('cli');
  env = { DATA_DIR: dataDir };
  if (mode === 'postgres') {
    testDatabase = await createTestDatabase();
    env.DATABASE_URL = testDatabase.url;
  }
});

afterAll(async () => {
  await killLeftovers();
  await cleanupDataDir(dataDir);
  await testDatabase?.drop();
});

/**
 * A failed --json command: its exit code and the `{ error }` body on stdout; `oneLine` tells that
 * stderr holds exactly `emporium: <message>`.
 */
function failure(result: CliResult) {
  const body = JSON.parse(result.stdout) as { error: { code: string; message: string } };
  const oneLine = result.stderr === `emporium: ${body.error.message}\n` && Object.keys(body).length === 1;
  return { exitCode: result.code, ...body.error, oneLine };
}

describe('emporium CLI (--json)', () => {
  const state = {
    storeId: '',
    readKey: { key: '', id: '' },
    allKey: { key: '', id: '' },
  };

  it('migrate applies the pending migrations', async () => {
    const { applied } = await runCliJson<{ applied: string[] }>(['migrate'], env);
    // A fresh embedded cluster starts empty; the postgres-mode database is a migrated template copy.
    if (mode === 'embedded') expect(applied).toContain('2026_11_22_0001_foundation');
    else expect(applied).toEqual([]);
  });

  it('store create prints { store: { id, slug, name } }', async () => {
    const out = await runCliJson<{ store: { id: string; slug: string; name: string } }>(
      ['store', 'create', '--slug', 's', '--name', 'N', '--currency', 'EUR', '--timezone', 'Europe/Paris'],
      env,
    );
    expect(out).toEqual({ store: { id: expect.stringMatching(UUID), slug: 's', name: 'N' } });
    state.storeId = out.store.id;
  });

  // The commands below need only store `s`: they run concurrently, CLI processes starting and
  // stopping the same embedded cluster side by side.
  it.concurrent('refuses a duplicate slug and bad slug, currency or timezone with a clear message', async ({
    expect,
  }) => {
    const cases: [string[], string, RegExp][] = [
      [['--slug', 's', '--name', 'Again'], 'conflict', /^a store with this slug already exists$/],
      [['--slug', 'Bad Slug!', '--name', 'N'], 'invalid_request', /slug/],
      [['--slug', 'ok-currency', '--name', 'N', '--currency', 'EURO'], 'invalid_request', /currency/],
      [['--slug', 'ok-iso', '--name', 'N', '--currency', 'QQQ'], 'invalid_request', /ISO 4217/],
    ];
    const [human, ...results] = await Promise.all([
      runCli(['store', 'create', '--slug', 'ok-timezone', '--name', 'N', '--timezone', 'Mars/Olympus'], env),
      ...cases.map(([args]) => runCli(['store', 'create', ...args, '--json'], env)),
    ]);
    results.forEach((result, i) => {
      const [, code, message] = cases[i] as (typeof cases)[number];
      expect(failure(result)).toEqual({
        exitCode: 1,
        code,
        message: expect.stringMatching(message),
        oneLine: true,
      });
    });
    // Without --json: nothing on stdout, one line on stderr.
    expect(human).toEqual({ code: 1, stdout: '', stderr: 'emporium: unknown timezone Mars/Olympus\n' });
  });

  it.concurrent('user create makes an admin user of the store; the same e-mail again is refused', async ({
    expect,
  }) => {
    const args = [
      'user',
      'create',
      '--email',
      'Owner@Example.com',
      '--password',
      'correct horse',
      '--store',
      's',
    ];
    expect(await runCliJson(args, env)).toEqual({
      user: {
        id: expect.stringMatching(UUID),
        email: 'owner@example.com',
        store_id: state.storeId,
        role: 'owner',
      },
    });
    expect(failure(await runCli([...args, '--json'], env))).toEqual({
      exitCode: 1,
      code: 'conflict',
      message: 'a user with this e-mail already exists',
      oneLine: true,
    });
  });

  it.concurrent('user create --role staff --permissions makes a staff member; an unknown role or scope is refused', async ({
    expect,
  }) => {
    const base = [
      'user',
      'create',
      '--email',
      'staff@example.com',
      '--password',
      'correct horse',
      '--store',
      's',
    ];
    expect(
      await runCliJson([...base, '--role', 'staff', '--permissions', 'orders:read,products:read'], env),
    ).toEqual({
      user: {
        id: expect.stringMatching(UUID),
        email: 'staff@example.com',
        store_id: state.storeId,
        role: 'staff',
      },
    });
    const badRole = await runCli([...base, '--role', 'admin', '--json'], env);
    expect(badRole.code).toBe(2);
    const badScope = await runCli(
      [
        'user',
        'create',
        '--email',
        'x@example.com',
        '--password',
        'correct horse',
        '--store',
        's',
        '--role',
        'staff',
        '--permissions',
        'root',
        '--json',
      ],
      env,
    );
    expect(failure(badScope)).toMatchObject({ exitCode: 1, code: 'invalid_request' });
  });

  it.concurrent('api-key create prints the secret once with its id and scopes; "all" gives every scope', async ({
    expect,
  }) => {
    const [read, all, unknown] = await Promise.all([
      runCliJson<{ key: string; id: string; scopes: string[] }>(
        ['api-key', 'create', '--store', 's', '--scopes', 'customers:read,orders:read', '--name', 'reader'],
        env,
      ),
      runCliJson<{ key: string; id: string; scopes: string[] }>(
        ['api-key', 'create', '--store', 's', '--scopes', 'all'],
        env,
      ),
      runCli(
        ['api-key', 'create', '--store', 's', '--scopes', 'customers:read,customers:delete', '--json'],
        env,
      ),
    ]);
    expect(read).toEqual({
      key: expect.stringMatching(/^sk_[A-Za-z0-9_-]{43,}$/),
      id: expect.stringMatching(UUID),
      scopes: ['customers:read', 'orders:read'],
    });
    expect(all.scopes).toHaveLength(18); // the seed's 16 and settings:read/settings:write (contract §9);
    expect([...all.scopes].sort()).toEqual([...SCOPES].sort());
    expect(all.key).not.toBe(read.key);
    expect(failure(unknown)).toEqual({
      exitCode: 1,
      code: 'invalid_request',
      message: expect.stringContaining('customers:delete'),
      oneLine: true,
    });
    state.readKey = read;
    state.allKey = all;
  });

  it.concurrent('seed creates the requested number of customers and prints the counts', async ({
    expect,
  }) => {
    const result = await runCli(['seed', '--store', 's', '--customers', '2500', '--json'], env);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      store: { id: state.storeId, slug: 's' },
      customers: 2500,
    });
    expect(result.stderr).toBe(''); // no progress bar mixed into --json runs
  });

  it.concurrent('seed --orders gives a store without products a few, buyers, and the orders', async ({
    expect,
  }) => {
    await runCliJson(['store', 'create', '--slug', 'history', '--name', 'History'], env);
    const result = await runCli(
      [
        'seed',
        '--store',
        'history',
        '--products',
        '0',
        '--customers',
        '0',
        '--orders',
        '300',
        '--days',
        '7',
        '--json',
      ],
      env,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      store: { slug: 'history' },
      products: 12,
      customers: 75,
      orders: 300,
    });
    expect(result.stderr).toBe('');
    const zero = await runCli(['seed', '--store', 'history', '--orders', '1', '--days', '0'], env);
    expect(zero.code).toBe(2);
    expect(zero.stderr).toContain('--days must be at least 1');
  });

  it.concurrent('openapi prints an OpenAPI 3.1 document with the merchant customers endpoints', async ({
    expect,
  }) => {
    const result = await runCli(['openapi'], env);
    expect(result.code).toBe(0);
    const doc = JSON.parse(result.stdout);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toMatchObject({ title: expect.any(String), version: expect.any(String) });
    expect(doc.components.securitySchemes.apiKey).toEqual({
      type: 'apiKey',
      in: 'header',
      name: 'X-API-Key',
    });
    const list = doc.paths['/api/v1/customers']?.get;
    expect(list.responses['200']).toBeDefined();
    expect(list.security).toEqual([{ apiKey: [] }, { adminSession: [] }]);
    expect(doc.paths['/api/v1/customers/{id}']?.get).toBeDefined();
    // Every operation documents its responses, and every local $ref resolves.
    const refs = new Set<string>();
    JSON.stringify(doc, (key, value) => {
      if (key === '$ref' && typeof value === 'string') refs.add(value);
      return value;
    });
    for (const ref of refs) {
      expect(ref.startsWith('#/')).toBe(true);
      const target = ref
        .slice(2)
        .split('/')
        .reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part], doc);
      expect(target, ref).toBeDefined();
    }
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
      for (const operation of Object.values(item)) {
        expect(Object.keys((operation as { responses: object }).responses ?? {}), path).not.toHaveLength(0);
      }
    }
  });

  it.concurrent('an unknown command exits 2 with the usage', async ({ expect }) => {
    const result = await runCli(['store', 'rename', '--slug', 's', '--json'], env);
    expect(result.code, result.stderr).toBe(2);
    expect(JSON.parse(result.stdout).error).toEqual({
      code: 'usage',
      message: expect.stringMatching(/^unknown command "store rename"\n\nUsage: emporium <command>/),
    });
    expect(result.stderr).toMatch(/^emporium: unknown command "store rename"\n\nUsage: emporium <command>/);
  });

  it('api-key revoke marks a key revoked; api-key list shows it so, and no secret', async () => {
    type Listed = { id: string; name: string; prefix: string; scopes: string[]; revoked_at: string | null };
    const [revoked, malformedId] = await Promise.all([
      runCliJson(['api-key', 'revoke', '--id', state.allKey.id], env),
      runCli(['api-key', 'revoke', '--id', 'not-a-uuid', '--json'], env),
    ]);
    expect(revoked).toEqual({ revoked: state.allKey.id });
    expect(failure(malformedId)).toEqual({
      exitCode: 1,
      code: 'not_found',
      message: 'API key not found',
      oneLine: true,
    });

    const list = await runCli(['api-key', 'list', '--store', 's', '--json'], env);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).not.toContain(state.readKey.key);
    expect(list.stdout).not.toContain(state.allKey.key);
    const { keys } = JSON.parse(list.stdout) as { keys: Listed[] };
    expect(keys.map((k) => k.id).sort()).toEqual([state.readKey.id, state.allKey.id].sort());
    const reader = keys.find((k) => k.id === state.readKey.id);
    expect(reader).toMatchObject({
      name: 'reader',
      scopes: ['customers:read', 'orders:read'],
      revoked_at: null,
    });
    expect(state.readKey.key.startsWith(reader?.prefix ?? '?')).toBe(true);
    expect(reader?.prefix.length).toBeLessThan(16);
    const revokedAt = keys.find((k) => k.id === state.allKey.id)?.revoked_at;
    expect(Date.parse(revokedAt ?? '')).toBeGreaterThan(Date.now() - 120_000);
  });

  it('a key created by the CLI works against `emporium serve` over HTTP', async () => {
    const server = await ServerProcess.start(env);
    try {
      expect(server.logLines().find((l) => l.msg.startsWith('Emporium ready'))?.mode).toBe(
        mode === 'embedded' ? 'embedded' : 'external',
      );
      // The database already has a store: no demo store on this first `serve`.
      expect(server.plainLines()).toEqual([]);

      const res = await server.fetch('/api/v1/customers?limit=5', {
        headers: { 'x-api-key': state.readKey.key },
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { data: unknown[]; meta: { pagination: { total: number } } };
      expect(body.meta.pagination.total).toBe(2500);
      expect(body.data).toHaveLength(5);

      const revoked = await server.fetch('/api/v1/customers', { headers: { 'x-api-key': state.allKey.key } });
      expect(revoked.status).toBe(401);

      // The store kept the currency and timezone given on the command line.
      const client = new pg.Client({ connectionString: testDatabase?.url ?? embeddedDatabaseUrl(dataDir) });
      await client.connect();
      try {
        const { rows } = await client.query('SELECT currency, timezone FROM stores WHERE slug = $1', ['s']);
        expect(rows).toEqual([{ currency: 'EUR', timezone: 'Europe/Paris' }]);
      } finally {
        await client.end();
      }
    } finally {
      expect(await server.stop()).toEqual({ code: 0, signal: null });
    }
  });
});
