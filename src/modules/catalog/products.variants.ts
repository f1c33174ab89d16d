import type { Tx } from '../../platform/db/database.js';
import { invalidRequest } from '../../platform/http/errors.js';
import { newId } from '../../platform/ids.js';
import type { InventoryService } from '../inventory/index.js';
import type { parseVariants } from './product-input.js';
import * as repo from './products.repository.js';

/** A product's stock levels and variant list, kept in step inside the writing transaction. */
export function createVariantSync(inventory: InventoryService) {
  /**
   * Moves stock through the inventory module, so the history stays exact. An edit makes several
   * moves (stock handed to new variants, removed variants, …): their events are recorded once, for
   * the net change, by recordCrossings at the end of the transaction.
   */
  async function setLevel(
    tx: Tx,
    storeId: string,
    target: { productId: string; variantId?: string },
    current: number,
    wanted: number,
  ) {
    if (wanted === current) return;
    await inventory.applyChange(tx, storeId, {
      productId: target.productId,
      variantId: target.variantId,
      delta: wanted - current,
      reason: 'product update',
      source: 'product_update',
      events: false,
    });
  }

  async function syncVariants(
    tx: Tx,
    storeId: string,
    productId: string,
    existing: repo.VariantRow[],
    wanted: ReturnType<typeof parseVariants>,
  ) {
    const byId = new Map(existing.map((v) => [v.id, v]));
    for (const v of wanted) {
      if (v.id && !byId.has(v.id))
        throw invalidRequest(`unknown variant id ${v.id}`, [{ field: 'variants', message: 'unknown id' }]);
    }
    const kept = new Set(wanted.flatMap((v) => (v.id ? [v.id] : [])));
    // Removed variants give their stock back first, so the product total stays the sum of variants.
    for (const old of existing) {
      if (!kept.has(old.id)) await setLevel(tx, storeId, { productId, variantId: old.id }, old.inventory, 0);
    }
    await repo.deleteVariantsExcept(tx, storeId, productId, [...kept]);
    const now = new Date();
    for (const [position, v] of wanted.entries()) {
      const fields = {
        title: v.title,
        sku: v.sku,
        price: v.price,
        compare_price: v.comparePrice,
        weight_grams: v.weightGrams,
        options: JSON.stringify(v.options),
        position,
        updated_at: now,
      };
      const old = v.id ? byId.get(v.id) : undefined;
      if (old) {
        await repo.updateVariant(tx, storeId, old.id, fields);
        if (v.inventory !== undefined)
          await setLevel(tx, storeId, { productId, variantId: old.id }, old.inventory, v.inventory);
      } else {
        const id = newId();
        await repo.insertVariants(tx, [
          { id, store_id: storeId, product_id: productId, inventory: 0, created_at: now, ...fields },
        ]);
        await setLevel(tx, storeId, { productId, variantId: id }, 0, v.inventory ?? 0);
      }
    }
  }

  return { setLevel, syncVariants };
}
