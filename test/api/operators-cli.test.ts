import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createStoreWithKey } from '../helpers/factories.js';
import {
  type CliResult,
  cleanupDataDir,
  type Env,
  killLeftovers,
  makeDataDir,
  runCli,
  runCliJson,
} from '../helpers/processes.js';

/**
 * `emporium operator create` and `store suspend|unsuspend|delete` as real processes (--json), on this
 * file's database; the results are checked through the operator API.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
let app: TestApp;
let dataDir: string;
let env: Env;

beforeAll(async () => {
  app = await buildTestApp();
  dataDir = makeDataDir('operators-cli');
  env = { DATA_DIR: dataDir, DATABASE_URL: app.testDatabase.url };
});
afterAll(async () => {
  await killLeftovers();
  await cleanupDataDir(dataDir);
  await app.close();
});

function failure(result: CliResult) {
  const body = JSON.parse(result.stdout) as { error: { code: string; message: string } };
  return { exitCode: result.code, code: body.error.code, message: body.error.message };
}

describe('emporium operator create', () => {
  it('creates an operator who can sign in; the same e-mail in another case is 409; bad input refused', async () => {
    const args = ['operator', 'create', '--email', 'Root@Platform.example', '--password', 'a good password'];
    const created = await runCliJson<{ operator: { id: string; email: string } }>(args, env);
    expect(created).toEqual({
      operator: { id: expect.stringMatching(UUID), email: 'root@platform.example' },
    });

    // One at a time: each is a process that opens the database (slow on a busy machine).
    const slow = { timeoutMs: 180_000 };
    const again = await runCli(
      ['operator', 'create', '--email', 'ROOT@platform.example', '--password', 'another one', '--json'],
      env,
      slow,
    );
    const badEmail = await runCli(
      ['operator', 'create', '--email', 'not-an-email', '--password', 'a good password', '--json'],
      env,
      slow,
    );
    const missing = await runCli(
      ['operator', 'create', '--email', 'y@platform.example', '--json'],
      env,
      slow,
    );
    expect(failure(again)).toEqual({
      exitCode: 1,
      code: 'conflict',
      message: 'an operator with this e-mail already exists',
    });
    expect(failure(badEmail)).toMatchObject({ exitCode: 1, code: 'invalid_request' });
    expect(failure(missing)).toEqual({ exitCode: 2, code: 'usage', message: '--password is required' });

    const login = await app.server.inject({
      method: 'POST',
      url: '/api/operator/auth/login',
      payload: { email: 'root@platform.example', password: 'a good password' },
    });
    expect(login.statusCode, login.body).toBe(200);
    expect(login.json().data.operator).toEqual(created.operator);
    // Stored as a scrypt hash, never the password.
    const row = await app.database.db
      .selectFrom('operators')
      .select('password_hash')
      .where('id', '=', created.operator.id)
      .executeTakeFirstOrThrow();
    expect(row.password_hash).toMatch(/^scrypt\$/);
    expect(row.password_hash).not.toContain('a good password');
  }, 600_000);
});

describe('emporium store suspend|unsuspend|delete', () => {
  it('suspends with a reason, unsuspends, and deletes only with --yes', async () => {
    const { store } = await createStoreWithKey(app);
    const status = async () =>
      (
        await app.database.db
          .selectFrom('stores')
          .select(['status', 'suspension_reason'])
          .where('id', '=', store.id)
          .executeTakeFirstOrThrow()
      ).status;
    const [noReason, unknown] = await Promise.all([
      runCli(['store', 'suspend', '--store', store.slug, '--json'], env),
      runCli(['store', 'suspend', '--store', 'no-such-store', '--reason', 'r'], env),
    ]);
    expect(failure(noReason)).toEqual({ exitCode: 2, code: 'usage', message: '--reason is required' });
    // Without --json: nothing on stdout, one line on stderr.
    expect(unknown).toEqual({ code: 1, stdout: '', stderr: 'emporium: store no-such-store not found\n' });

    const suspended = await runCliJson(
      ['store', 'suspend', '--store', store.slug, '--reason', 'Unpaid invoices'],
      env,
    );
    expect(suspended).toEqual({
      store: { id: store.id, slug: store.slug, status: 'suspended', reason: 'Unpaid invoices' },
    });
    expect(await status()).toBe('suspended');
    const again = await runCli(
      ['store', 'suspend', '--store', store.slug, '--reason', 'again', '--json'],
      env,
    );
    expect(failure(again)).toMatchObject({ exitCode: 1, code: 'conflict' });

    expect(await runCliJson(['store', 'unsuspend', '--store', store.slug], env)).toEqual({
      store: { id: store.id, slug: store.slug, status: 'active' },
    });
    expect(await status()).toBe('active');

    // Not a terminal and no --yes: nothing is deleted.
    const unconfirmed = await runCli(['store', 'delete', '--store', store.slug, '--json'], env);
    expect(failure(unconfirmed)).toMatchObject({
      exitCode: 2,
      code: 'usage',
      message: expect.stringMatching(/--yes/),
    });
    expect(await status()).toBe('active');
    expect(await runCliJson(['store', 'delete', '--store', store.slug, '--yes'], env)).toEqual({
      store: { id: store.id, slug: store.slug, status: 'deleting' },
    });
    expect(await status()).toBe('deleting');
  }, 600_000);
});
