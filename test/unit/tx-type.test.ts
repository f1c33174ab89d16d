import { describe, expect, it } from 'vitest';
import * as categories from '../../src/modules/catalog/categories.repository.js';
import * as products from '../../src/modules/catalog/products.repository.js';
import * as codes from '../../src/modules/customer-accounts/customer-accounts.repository.js';
import * as customers from '../../src/modules/customers/customers.repository.js';
import * as inventory from '../../src/modules/inventory/inventory.repository.js';
import * as orders from '../../src/modules/orders/orders.repository.js';
import type { Db, Tx } from '../../src/platform/db/database.js';

/**
 * Functions that take a lock lasting until the transaction ends (FOR UPDATE, advisory xact locks)
 * accept only a `Tx`: given the pool, each statement would run alone and the lock would be gone at
 * once. Checked by the compiler (`tsc --noEmit` covers test/): every `@ts-expect-error` below must
 * be an error, or the type check fails.
 */
function lockSitesRefuseThePool(db: Db, tx: Tx) {
  // @ts-expect-error the pool cannot hold a row lock
  void orders.findOrder(db, 'store', 'id', { lock: true });
  void orders.findOrder(tx, 'store', 'id', { lock: true });
  void orders.findOrder(db, 'store', 'id');
  // @ts-expect-error the pool cannot hold a row lock
  void products.findProduct(db, 'store', 'id', { forUpdate: true });
  void products.findProduct(tx, 'store', 'id', { forUpdate: true });
  void products.findProduct(db, 'store', 'id');
  // @ts-expect-error the pool cannot hold the order counter
  void orders.lockOrderCounterForBulk(db, 'store');
  // @ts-expect-error the pool cannot hold a customer lock
  void customers.lockCustomer(db, 'store', 'id');
  // @ts-expect-error the pool cannot hold an advisory transaction lock
  void products.lockSlugBase(db, 'store', 'base');
  // @ts-expect-error the pool cannot hold an advisory transaction lock
  void categories.lockSlugBase(db, 'store', 'base');
  // @ts-expect-error the pool cannot hold a product lock
  void inventory.lockProductOfVariant(db, 'store', 'variant');
  // @ts-expect-error the pool cannot hold the code row lock
  void codes.latestCodeForUpdate(db, 'store', 'email');
  // @ts-expect-error the pool cannot hold an advisory transaction lock
  void codes.lockCodeRequests(db, 'store', 'email');
}

describe('Tx', () => {
  it('is what the lock sites require (the compiler checks the calls above)', () => {
    expect(lockSitesRefuseThePool).toBeTypeOf('function');
  });
});
