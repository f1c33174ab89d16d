export type StockStatus = 'in_stock' | 'low_stock' | 'out_of_stock';
export type StockCrossing = 'low_stock' | 'out_of_stock';

export function stockStatus(inventory: number, trackInventory: boolean, threshold: number): StockStatus {
  if (!trackInventory) return 'in_stock';
  if (inventory <= 0) return 'out_of_stock';
  return inventory <= threshold ? 'low_stock' : 'in_stock';
}

/**
 * The events a change of level fires: low stock when it crosses from above the threshold to at or
 * below it while staying above zero; out of stock when it reaches zero from above. Each fires once
 * per crossing: staying low, or going from 3 to 2, fires nothing.
 */
export function stockCrossings(previous: number, next: number, threshold: number): StockCrossing[] {
  const crossings: StockCrossing[] = [];
  if (previous > threshold && next <= threshold && next > 0) crossings.push('low_stock');
  if (previous > 0 && next <= 0) crossings.push('out_of_stock');
  return crossings;
}
