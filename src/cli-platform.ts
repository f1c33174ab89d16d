import { createInterface } from 'node:readline/promises';
import type { App } from './app.js';

/** What a platform command prints: `data` with --json, else `human`. */
export interface CommandOutput {
  data: unknown;
  human: string;
}

export interface PlatformCommandInput {
  /** A flag's value, or the command's usage error naming it. */
  required: (name: string) => string;
  /** `store delete` without --yes asks to type the slug (a terminal only); true skips that. */
  yes: boolean;
  usageError: (message: string) => Error;
}

/** Reads one line from the terminal (only when stdin is one). */
async function ask(question: string): Promise<string> {
  const terminal = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return (await terminal.question(question)).trim();
  } finally {
    terminal.close();
  }
}

/**
 * The platform's commands (contract §14): `operator create`, `store suspend|unsuspend|delete`,
 * through the same services as the operator API (suspension and deletion recorded in the store's
 * audit log as the system's).
 */
export async function runPlatformCommand(
  command: string,
  services: App['services'],
  input: PlatformCommandInput,
): Promise<CommandOutput> {
  const { required } = input;
  if (command === 'operator create') {
    const operator = await services.operators.createOperator({
      email: required('email'),
      password: required('password'),
    });
    return { data: { operator }, human: `created operator ${operator.email} (${operator.id})` };
  }
  const store = await services.stores.requireStoreBySlug(required('store'));
  const lifecycle = services.storeLifecycle;
  switch (command) {
    case 'store suspend': {
      const row = await lifecycle.suspend(store.id, required('reason'));
      const data = {
        store: { id: row.id, slug: row.slug, status: row.status, reason: row.suspension_reason },
      };
      return { data, human: `suspended ${row.slug}: ${row.suspension_reason}` };
    }
    case 'store unsuspend': {
      const row = await lifecycle.unsuspend(store.id);
      return {
        data: { store: { id: row.id, slug: row.slug, status: row.status } },
        human: `unsuspended ${row.slug}`,
      };
    }
    case 'store delete': {
      if (!input.yes) {
        if (!process.stdin.isTTY)
          throw input.usageError("store delete removes all of the store's data: add --yes to confirm");
        const typed = await ask(`Type the store's slug (${store.slug}) to delete it and all its data: `);
        if (typed !== store.slug) throw input.usageError('the slug typed does not match: nothing deleted');
      }
      const row = await lifecycle.requestDeletion(store.id);
      return {
        data: { store: { id: row.id, slug: row.slug, status: row.status } },
        human: `deleting ${row.slug}: its data and media are removed in the background by the worker`,
      };
    }
    default:
      throw input.usageError(`unknown command "${command}"`);
  }
}
