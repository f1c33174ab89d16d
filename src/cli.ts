import { parseArgs } from 'node:util';
import pg from 'pg';
import pino, { type Logger } from 'pino';
import { buildApp } from './app.js';
import { runPlatformCommand } from './cli-platform.js';
import { progressBar } from './cli-progress.js';
import { type Config, ConfigError, loadConfig } from './config.js';
import { openApiDocument } from './openapi-document.js';
import type { Db } from './platform/db/database.js';
import { EmbeddedClusterError } from './platform/db/embedded.js';
import { migrateToLatest } from './platform/db/migrate.js';
import { AppError, notFound, toAppError } from './platform/http/errors.js';
import { isUuid } from './platform/ids.js';
import { createLogger, loggerOptions } from './platform/log.js';
import { openRuntime } from './runtime.js';
import { seedStore } from './seed/seed.js';
import { StartError, serve, work } from './server.js';

const USAGE = `Usage: emporium <command> [options]   (all commands accept --json)

  serve [--port N] [--no-worker]      run the HTTP server (and the background worker)
  worker                              run the background worker alone (webhooks, push notifications)
  migrate                             apply pending database migrations
  store create --slug S --name N [--currency USD] [--timezone UTC]
  user create --email E --password P --store S [--role owner|staff] [--permissions a,b|all]
                                      an owner by default; an existing user joins the store
  api-key create --store S --scopes a,b|all [--name N]
  api-key list --store S
  api-key revoke --id ID
  seed --store S [--products N] [--customers N] [--orders N] [--days N]
                                      demo data (up to 1,000,000 orders in minutes, over the last
                                      N days, 365 by default), with a progress bar
  openapi                             print the OpenAPI 3.1 document
  operator create --email E --password P
                                      an operator of the platform (signs in to /operator)
  store suspend --store S --reason R  close a store to everyone (nothing is deleted)
  store unsuspend --store S
  store delete --store S [--yes]      delete a store and its data (in the background); without
                                      --yes, asks to type the slug
`;

class UsageError extends Error {}

type Flags = Record<string, string | boolean | undefined>;

function required(flags: Flags, name: string): string {
  const value = flags[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

function count(flags: Flags, name: string, fallback: number): number {
  const value = flags[name];
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !/^\d+$/.test(value))
    throw new UsageError(`--${name} must be a whole number`);
  return Number(value);
}

function output(json: boolean, data: unknown, human: string) {
  process.stdout.write(json ? `${JSON.stringify(data, null, 2)}\n` : `${human}\n`);
}

/** Runs `work` with the app's services over the configured database, then closes everything. */
async function withServices<T>(
  config: Config,
  logger: Logger,
  work: (app: Awaited<ReturnType<typeof buildApp>>, db: Db) => Promise<T>,
): Promise<T> {
  const runtime = await openRuntime(config, logger, { migrate: true, poolSize: 4 });
  try {
    const app = await buildApp({
      config,
      db: runtime.database.db,
      logger,
      rateLimitStore: runtime.rateLimitStore,
      // A one-shot command: a refresh still in flight when it closes would log a failed load.
      watchCustomDomains: false,
    });
    try {
      return await work(app, runtime.database.db);
    } finally {
      await app.server.close();
    }
  } finally {
    await runtime.close();
  }
}

async function run(argv: string[]): Promise<void> {
  const { values: flags, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
      port: { type: 'string' },
      'no-worker': { type: 'boolean' },
      slug: { type: 'string' },
      name: { type: 'string' },
      currency: { type: 'string' },
      timezone: { type: 'string' },
      email: { type: 'string' },
      password: { type: 'string' },
      store: { type: 'string' },
      scopes: { type: 'string' },
      role: { type: 'string' },
      permissions: { type: 'string' },
      id: { type: 'string' },
      customers: { type: 'string' },
      products: { type: 'string' },
      orders: { type: 'string' },
      days: { type: 'string' },
      reason: { type: 'string' },
      yes: { type: 'boolean' },
    },
  });
  const json = flags.json === true;
  const [command, sub] = positionals;
  if (flags.help || !command) {
    process.stdout.write(USAGE);
    return;
  }
  const config = loadConfig();
  // CLI commands log warnings only, and to stderr: stdout carries their result (--json).
  const logger =
    command === 'serve' || command === 'worker'
      ? createLogger(config.logLevel, config.logFormat)
      : pino(loggerOptions('warn'), pino.destination(2));

  const hasSubcommand = ['store', 'user', 'api-key', 'operator'].includes(command);
  switch (hasSubcommand ? `${command} ${sub ?? ''}` : command) {
    case 'serve': {
      const port = flags.port === undefined ? undefined : count(flags, 'port', config.port);
      await serve(config, logger, { port, worker: flags['no-worker'] !== true });
      return;
    }
    case 'worker': {
      await work(config, logger);
      return;
    }
    case 'migrate': {
      const runtime = await openRuntime(config, logger, { migrate: false, poolSize: 2 });
      try {
        const { applied, validated } = await migrateToLatest(runtime.database.db);
        const text = applied.length ? `applied: ${applied.join(', ')}` : 'already up to date';
        output(
          json,
          { applied, validated },
          validated.length ? `${text}; validated: ${validated.join(', ')}` : text,
        );
      } finally {
        await runtime.close();
      }
      return;
    }
    case 'store create': {
      const store = await withServices(config, logger, (app) =>
        app.services.stores.createStore({
          slug: required(flags, 'slug'),
          name: required(flags, 'name'),
          currency: flags.currency as string | undefined,
          timezone: flags.timezone as string | undefined,
        }),
      );
      const data = { store: { id: store.id, slug: store.slug, name: store.name } };
      output(json, data, `created store ${store.slug} (${store.id})`);
      return;
    }
    case 'user create': {
      const role = flags.role ?? 'owner';
      if (role !== 'owner' && role !== 'staff') throw new UsageError('--role must be owner or staff');
      const permissionsFlag = typeof flags.permissions === 'string' ? flags.permissions : '';
      if (role === 'owner' && permissionsFlag) throw new UsageError('--permissions is for --role staff');
      const user = await withServices(config, logger, (app) =>
        app.services.team.createMember({
          email: required(flags, 'email'),
          password: required(flags, 'password'),
          storeSlug: required(flags, 'store'),
          role,
          permissions:
            permissionsFlag === 'all'
              ? 'all'
              : permissionsFlag
                  .split(',')
                  .map((s) => s.trim())
                  .filter(Boolean),
        }),
      );
      output(
        json,
        { user: { id: user.id, email: user.email, store_id: user.store_id, role: user.role } },
        `${user.existing ? 'added existing user' : 'created user'} ${user.email} (${user.role})`,
      );
      return;
    }
    case 'api-key create': {
      const scopesFlag = required(flags, 'scopes');
      const scopes = scopesFlag === 'all' ? 'all' : scopesFlag.split(',').map((s) => s.trim());
      const key = await withServices(config, logger, async (app) => {
        const store = await app.services.stores.requireStoreBySlug(required(flags, 'store'));
        return app.services.stores.createApiKey(store.id, { name: flags.name as string | undefined, scopes });
      });
      output(
        json,
        { key: key.key, id: key.id, scopes: key.scopes },
        `API key ${key.id} (shown once, keep it):\n  ${key.key}\nscopes: ${key.scopes.join(', ')}`,
      );
      return;
    }
    case 'api-key list': {
      const rows = await withServices(config, logger, async (app) => {
        const store = await app.services.stores.requireStoreBySlug(required(flags, 'store'));
        return app.services.stores.listApiKeys(store.id);
      });
      const keys = rows.map((k) => ({
        id: k.id,
        name: k.name,
        prefix: k.key_prefix,
        scopes: k.scopes,
        created_at: k.created_at.toISOString(),
        last_used_at: k.last_used_at?.toISOString() ?? null,
        revoked_at: k.revoked_at?.toISOString() ?? null,
      }));
      const human = keys
        .map(
          (k) =>
            `${k.id}  ${k.prefix}…  ${k.revoked_at ? 'revoked' : 'active '}  ${k.name}  [${k.scopes.join(',')}]`,
        )
        .join('\n');
      output(json, { keys }, human || 'no API keys');
      return;
    }
    case 'api-key revoke': {
      const id = required(flags, 'id');
      // A malformed id names no key: the same answer as an unknown one (and as the HTTP API).
      if (!isUuid(id)) throw notFound('API key');
      await withServices(config, logger, (app) => app.services.stores.revokeApiKeyById(id));
      output(json, { revoked: id }, `revoked ${id}`);
      return;
    }
    case 'seed': {
      const customers = count(flags, 'customers', 100);
      const products = count(flags, 'products', 50);
      const orders = count(flags, 'orders', 0);
      const days = count(flags, 'days', 365);
      if (days < 1) throw new UsageError('--days must be at least 1');
      const result = await withServices(config, logger, (app, db) =>
        seedStore(
          app.services,
          app.mediaStorage,
          {
            storeSlug: required(flags, 'store'),
            customers,
            products,
            orders,
            days,
            onProgress: progressBar(!json && process.stderr.isTTY !== false),
          },
          db,
        ),
      );
      output(
        json,
        result,
        `seeded ${result.store.slug}: ${result.products} products, ${result.customers} customers, ${result.orders} orders`,
      );
      return;
    }
    case 'operator create':
    case 'store suspend':
    case 'store unsuspend':
    case 'store delete': {
      const name = `${command} ${sub}`;
      const result = await withServices(config, logger, (app) =>
        runPlatformCommand(name, app.services, {
          required: (flag) => required(flags, flag),
          yes: flags.yes === true,
          usageError: (message) => new UsageError(message),
        }),
      );
      output(json, result.data, result.human);
      return;
    }
    case 'openapi': {
      const document = await openApiDocument(config, logger);
      process.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
      return;
    }
    default:
      throw new UsageError(`unknown command "${positionals.join(' ')}"\n\n${USAGE}`);
  }
}

run(process.argv.slice(2)).catch((error: unknown) => {
  const json = process.argv.includes('--json');
  let message: string;
  let code = 'error';
  // Constraint violations (duplicate slug or e-mail) get the same code and message as over HTTP.
  const mapped = error instanceof pg.DatabaseError ? toAppError(error) : error;
  if (mapped instanceof AppError && mapped.statusCode < 500) {
    message = mapped.message;
    code = mapped.code;
  } else if (error instanceof AppError) {
    message = error.message;
    code = error.code;
  } else if (
    error instanceof UsageError ||
    error instanceof ConfigError ||
    error instanceof EmbeddedClusterError ||
    error instanceof StartError
  ) {
    message = error.message;
    code = error instanceof UsageError ? 'usage' : 'config';
  } else if (error instanceof TypeError && (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
    message = error.message;
    code = 'usage';
  } else {
    message = error instanceof Error ? error.message : String(error);
  }
  if (json) process.stdout.write(`${JSON.stringify({ error: { code, message } })}\n`);
  process.stderr.write(`emporium: ${message}\n`);
  process.exit(code === 'usage' ? 2 : 1);
});
