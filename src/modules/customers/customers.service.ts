import type { Db, Executor, Tx } from '../../platform/db/database.js';
import type { CreatedKey } from '../../platform/db/keyset.js';
import type { Writer } from '../../platform/db/write-batch.js';
import type { RequestContext } from '../../platform/http/context.js';
import { withStoredCountry } from '../../platform/http/country-input.js';
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

export interface NewAddress {
  line1: string;
  line2?: string | null;
  city: string;
  region?: string | null;
  postal_code: string;
  country: string;
  phone?: string | null;
  is_default?: boolean;
}

function newCustomerRow(storeId: string, customer: NewCustomer) {
  return {
    id: newId(),
    store_id: storeId,
    email: customer.email.trim().toLowerCase(),
    first_name: customer.first_name ?? null,
    last_name: customer.last_name ?? null,
    phone: customer.phone ?? null,
  };
}

export function createCustomersService(db: Db, stores: StoresService) {
  const decimalsOf = async (storeId: string) => currencyDecimals((await stores.getStore(storeId)).currency);

  return {
    /** A page by number, or after a cursor's key (`after`); `lastKey` is the next cursor's. */
    async list(ctx: RequestContext, page: PageRequest & { after?: CreatedKey }, filter: repo.CustomerFilter) {
      const [result, decimals] = await Promise.all([
        repo.listCustomers(db, ctx.storeId, filter, {
          offset: offsetOf(page),
          limit: page.limit,
          after: page.after,
        }),
        decimalsOf(ctx.storeId),
      ]);
      const last = result.rows.at(-1);
      return { ...result, decimals, lastKey: last ? { t: last.created_us, i: last.id } : undefined };
    },

    async get(ctx: RequestContext, id: string) {
      const row = isUuid(id) ? await repo.findCustomer(db, ctx.storeId, id) : undefined;
      if (!row) throw notFound('customer');
      return { row, decimals: await decimalsOf(ctx.storeId) };
    },

    /** The buyer of an order: found by e-mail (case-insensitive) or created, in the order's transaction. */
    findOrCreate(tx: Executor, storeId: string, customer: NewCustomer) {
      return repo.upsertByEmail(tx, newCustomerRow(storeId, customer));
    },

    /**
     * The buyer of an order as queries for the order's readTogether: the customer a session names,
     * locked (undefined for an id that cannot be one: no customer), or the one of this e-mail,
     * created when absent (`upsert`) and else locked as it stands (`current`: the upsert writes
     * nothing when there is nothing to fill in). Its row comes back through `buyerFromRead`.
     */
    buyerQueries(tx: Tx, storeId: string, customer: NewCustomer & { id?: string }) {
      if (customer.id === undefined) {
        const row = newCustomerRow(storeId, customer);
        return { upsert: repo.upsertByEmailQuery(row), current: repo.lockByEmailQuery(storeId, row.email) };
      }
      return isUuid(customer.id)
        ? { upsert: repo.lockCustomerQuery(tx, storeId, customer.id).compile(), current: undefined }
        : undefined;
    },
    /**
     * The buyer from buyerQueries' rows: the upsert's (created or filled in), else the locked current
     * one; else, by e-mail, the customer a concurrent first checkout created after the statement's
     * snapshot (the upsert waited for it and locked it), read in a statement of its own.
     */
    async buyerFromRead(
      tx: Tx,
      storeId: string,
      customer: NewCustomer & { id?: string },
      read: { upsert: unknown[]; current: unknown[] | undefined },
    ) {
      const json = read.upsert[0] ?? read.current?.[0];
      if (json !== undefined) return repo.customerFromJson(json);
      if (customer.id !== undefined) return undefined;
      return repo.findLockedByEmail(tx, storeId, newCustomerRow(storeId, customer).email);
    },

    findByEmail: (executor: Executor, storeId: string, email: string) =>
      repo.findByEmail(executor, storeId, email),

    findById: (executor: Executor, storeId: string, id: string) =>
      isUuid(id) ? repo.findCustomer(executor, storeId, id) : Promise.resolve(undefined),

    /** The customer, locked until the caller's transaction ends (lock order: docs/decisions.md). */
    lockById: (tx: Tx, storeId: string, id: string) =>
      isUuid(id) ? repo.lockCustomer(tx, storeId, id) : Promise.resolve(undefined),

    /** Orders count and money spent move with the orders, in the same transaction. */
    addOrderStats: (
      tx: Writer,
      storeId: string,
      customerId: string,
      delta: { orders: number; spent: number },
    ) => repo.addOrderStats(tx, storeId, customerId, delta),

    /** The signed-in customer's own record (customer endpoints). */
    async profile(storeId: string, customerId: string) {
      const row = await repo.findCustomer(db, storeId, customerId);
      if (!row) throw notFound('customer');
      return row;
    },

    async updateProfile(
      storeId: string,
      customerId: string,
      patch: { first_name?: string | null; last_name?: string | null; phone?: string | null },
    ) {
      const row = await repo.updateProfile(db, storeId, customerId, patch);
      if (!row) throw notFound('customer');
      return row;
    },

    addresses: (storeId: string, customerId: string) => repo.listAddresses(db, storeId, customerId),

    /** The first address, or one marked default, becomes the default; there is always one default. */
    addAddress(storeId: string, customerId: string, address: NewAddress) {
      return db.transaction().execute(async (tx) => {
        const existing = await repo.listAddresses(tx, storeId, customerId);
        const isDefault = address.is_default === true || existing.length === 0;
        if (isDefault) await repo.clearDefaultAddress(tx, storeId, customerId);
        return repo.insertAddress(
          tx,
          withStoredCountry({
            id: newId(),
            store_id: storeId,
            customer_id: customerId,
            line1: address.line1,
            line2: address.line2 ?? null,
            city: address.city,
            region: address.region ?? null,
            postal_code: address.postal_code,
            country: address.country,
            phone: address.phone ?? null,
            is_default: isDefault,
            created_at: new Date(),
          }),
        );
      });
    },

    removeAddress(storeId: string, customerId: string, id: string) {
      return db.transaction().execute(async (tx) => {
        const removed = isUuid(id) ? await repo.deleteAddress(tx, storeId, customerId, id) : undefined;
        if (!removed) throw notFound('address');
        if (removed.is_default) await repo.promoteOldestAddress(tx, storeId, customerId);
      });
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
