import type { Db } from '../../platform/db/database.js';
import type { RequestContext } from '../../platform/http/context.js';
import { offsetOf, type PageRequest } from '../../platform/http/envelopes.js';
import { notFound } from '../../platform/http/errors.js';
import { isUuid, newId } from '../../platform/ids.js';
import * as repo from './customers.repository.js';

export interface NewCustomer {
  email: string;
  first_name?: string | null;
  last_name?: string | null;
  phone?: string | null;
  created_at?: Date;
}

export function createCustomersService(db: Db) {
  return {
    async list(ctx: RequestContext, page: PageRequest, filter: repo.CustomerFilter) {
      return repo.listCustomers(db, ctx.storeId, filter, { offset: offsetOf(page), limit: page.limit });
    },

    async get(ctx: RequestContext, id: string) {
      const row = isUuid(id) ? await repo.findCustomer(db, ctx.storeId, id) : undefined;
      if (!row) throw notFound('customer');
      return row;
    },

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
