import type { Db, Executor } from '../../platform/db/database.js';
import type { RequestContext } from '../../platform/http/context.js';
import { offsetOf, type PageRequest } from '../../platform/http/envelopes.js';
import { notFound } from '../../platform/http/errors.js';
import { isUuid, newId } from '../../platform/ids.js';
import { currencyDecimals } from '../../platform/money.js';
import type { StoresService } from '../stores/index.js';
import * as repo from './customers.repository.js';

export interface NewCustomer {
  email: string;
  first_name?: string | null;
  last_name?: string | null;
  phone?: string | null;
  created_at?: Date;
}

export function createCustomersService(db: Db, stores: StoresService) {
  const decimalsOf = async (storeId: string) => currencyDecimals((await stores.getStore(storeId)).currency);

  return {
    async list(ctx: RequestContext, page: PageRequest, filter: repo.CustomerFilter) {
      const [result, decimals] = await Promise.all([
        repo.listCustomers(db, ctx.storeId, filter, { offset: offsetOf(page), limit: page.limit }),
        decimalsOf(ctx.storeId),
      ]);
      return { ...result, decimals };
    },

    async get(ctx: RequestContext, id: string) {
      const row = isUuid(id) ? await repo.findCustomer(db, ctx.storeId, id) : undefined;
      if (!row) throw notFound('customer');
      return { row, decimals: await decimalsOf(ctx.storeId) };
    },

    /** The buyer of an order: found by e-mail (case-insensitive) or created, in the order's transaction. */
    findOrCreate(tx: Executor, storeId: string, customer: NewCustomer) {
      return repo.upsertByEmail(tx, {
        id: newId(),
        store_id: storeId,
        email: customer.email.trim().toLowerCase(),
        first_name: customer.first_name ?? null,
        last_name: customer.last_name ?? null,
        phone: customer.phone ?? null,
      });
    },

    findByEmail: (executor: Executor, storeId: string, email: string) =>
      repo.findByEmail(executor, storeId, email),

    findById: (executor: Executor, storeId: string, id: string) =>
      isUuid(id) ? repo.findCustomer(executor, storeId, id) : Promise.resolve(undefined),

    /** Orders count and money spent move with the orders, in the same transaction. */
    addOrderStats: (
      tx: Executor,
      storeId: string,
      customerId: string,
      delta: { orders: number; spent: number },
    ) => repo.addOrderStats(tx, storeId, customerId, delta),

    /** Bulk creation for the CLI seed and test factories. */
    async createMany(storeId: string, customers: NewCustomer[]) {
      if (customers.length === 0) return [];
      const now = new Date();
      return repo.insertCustomers(
        db,
        customers.map((c) => ({
          id: newId(),
          store_id: storeId,
          email: c.email.toLowerCase(),
          first_name: c.first_name ?? null,
          last_name: c.last_name ?? null,
          phone: c.phone ?? null,
          created_at: c.created_at ?? now,
          updated_at: c.created_at ?? now,
        })),
      );
    },
  };
}

export type CustomersService = ReturnType<typeof createCustomersService>;
