import type { Db } from '../../platform/db/database.js';
import { inTransaction } from '../../platform/db/transaction.js';
import { AppError, conflict, invalidRequest, notFound } from '../../platform/http/errors.js';
import { isUuid } from '../../platform/ids.js';
import { recordAudit } from '../audit/index.js';
import { StoreClosedError, storeSuspended } from './store-closed.js';
import { announceDeletion } from './store-deletion.repository.js';
import * as stores from './stores.repository.js';
import type { StoreRow, StoresService } from './stores.service.js';
import type { StoreStatus } from './stores.tables.js';

type LifecyclePatch = Partial<
  Pick<StoreRow, 'suspended_at' | 'suspension_reason' | 'deletion_requested_at' | 'deletion_locked_until'>
>;

/** Who asked: an operator (named in the store's audit log as `operator <email>`), else the system. */
export interface LifecycleOptions {
  by?: { operatorEmail: string };
}

const MAX_REASON = 500;

type Transition = { to: StoreStatus; action: 'store.suspend' | 'store.unsuspend' | 'store.delete' };

/**
 * Suspension and deletion of a store (contract §14), as operators and the CLI ask for them. Each is
 * one transaction on the store's locked row with its audit entry; the stores service's caches (and
 * its custom-domain directory) forget the store at once, so this process's next request sees it.
 */
export function createStoreLifecycle(deps: { db: Db; stores: StoresService }) {
  const { db } = deps;

  /**
   * Locks the store, lets `decide` say what to change (or nothing), writes it with its audit row.
   * An unknown store or one being deleted is 404: it is gone for everyone from that moment.
   */
  async function change(
    storeId: string,
    opts: LifecycleOptions | undefined,
    decide: (store: StoreRow) => (Transition & { patch: LifecyclePatch }) | undefined,
  ): Promise<StoreRow> {
    if (!isUuid(storeId)) throw notFound('store');
    const row = await inTransaction(db, async (tx) => {
      const store = await stores.lockStore(tx, storeId);
      if (!store || store.status === 'deleting') throw notFound('store');
      const step = decide(store);
      if (!step) return store;
      const { to, action, patch } = step;
      await stores.updateStore(tx, storeId, { ...patch, status: to, updated_at: new Date() });
      // The deletion job wakes at the commit.
      if (to === 'deleting') await announceDeletion(tx);
      await recordAudit(tx, {
        storeId,
        actor: {
          type: 'system',
          id: null,
          name: opts?.by ? `operator ${opts.by.operatorEmail}` : 'system',
        },
        action,
        resourceType: 'store',
        resourceId: storeId,
        ip: null,
      });
      return { ...store, ...patch, status: to };
    });
    deps.stores.storeStatusChanged(row);
    return row;
  }

  /** The store's row as requests see it (cached 5 s, this process's changes at once); gone: undefined. */
  async function storeOf(storeId: string): Promise<StoreRow | undefined> {
    try {
      return await deps.stores.getStore(storeId);
    } catch (error) {
      if (error instanceof AppError && error.statusCode === 404) return undefined;
      throw error;
    }
  }

  return {
    /**
     * An API key's or dashboard session's context, if its store lets merchants in: a suspended
     * store's is refused (403 saying why), a store being deleted has no credentials left (undefined:
     * 401). On every request, after the key or session is known.
     */
    async admitMerchant<T extends { storeId: string }>(ctx: T | undefined): Promise<T | undefined> {
      if (!ctx) return undefined;
      const store = await storeOf(ctx.storeId);
      if (!store || store.status === 'deleting') return undefined;
      if (store.status === 'suspended') throw storeSuspended(store.suspension_reason);
      return ctx;
    },

    /** A customer's (or mobile app's) session, if its store is open: a suspended store's is 503. */
    async admitShopper<T extends { storeId: string }>(session: T | undefined): Promise<T | undefined> {
      if (!session) return undefined;
      const store = await storeOf(session.storeId);
      if (!store || store.status === 'deleting') return undefined;
      if (store.status === 'suspended') throw new StoreClosedError(store.name);
      return session;
    },

    /** Closes the store to everyone (shop, storefront, keys, sessions; webhooks and e-mails wait). */
    async suspend(storeId: string, reason: string, opts?: LifecycleOptions): Promise<StoreRow> {
      const why = reason.trim();
      if (!why) throw invalidRequest('reason must not be empty', [{ field: 'reason', message: 'is empty' }]);
      if (why.length > MAX_REASON)
        throw invalidRequest(`reason must be at most ${MAX_REASON} characters`, [
          { field: 'reason', message: `is longer than ${MAX_REASON} characters` },
        ]);
      return change(storeId, opts, (store) => {
        if (store.status === 'suspended') throw conflict('the store is already suspended');
        if (store.status !== 'active') throw conflict(`the store is ${store.status}`);
        return {
          to: 'suspended',
          action: 'store.suspend',
          patch: { suspended_at: new Date(), suspension_reason: why },
        };
      });
    },

    /** Opens a suspended store again; an active store is left as it is (200, no audit entry). */
    unsuspend(storeId: string, opts?: LifecycleOptions): Promise<StoreRow> {
      return change(storeId, opts, (store) => {
        if (store.status === 'active') return undefined;
        if (store.status !== 'suspended') throw conflict(`the store is ${store.status}`);
        return {
          to: 'active',
          action: 'store.unsuspend',
          patch: { suspended_at: null, suspension_reason: null },
        };
      });
    },

    /**
     * Marks the store for deletion: from now on it answers nowhere (404 to operators too), and the
     * job runner's `store_deletion` job removes its rows and media in the background.
     */
    requestDeletion(storeId: string, opts?: LifecycleOptions): Promise<StoreRow> {
      return change(storeId, opts, () => ({
        to: 'deleting',
        action: 'store.delete',
        patch: { deletion_requested_at: new Date(), deletion_locked_until: null },
      }));
    },
  };
}

export type StoreLifecycle = ReturnType<typeof createStoreLifecycle>;
