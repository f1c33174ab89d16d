// Sets stock levels from a CSV of `sku,quantity` lines (a warehouse export): finds each SKU among the
// store's products and variants and adjusts its inventory by the difference, with a reason.
//
//   EMPORIUM_URL=http://localhost:3000 EMPORIUM_API_KEY=sk_… node examples/update-stock.mjs stock.csv
//
// The adjustment is relative (concurrent sales between the read and the write are kept); a level
// that would go below zero is reported (409 insufficient_stock) and the other lines still run.
import fs from 'node:fs';
import { createEmporiumClient, EmporiumError } from '@emporium/sdk';

const emporium = createEmporiumClient({
  baseUrl: process.env.EMPORIUM_URL ?? 'http://localhost:3000',
  apiKey: process.env.EMPORIUM_API_KEY,
});
const lines = fs
  .readFileSync(process.argv[2] ?? 'stock.csv', 'utf8')
  .split(/\r?\n/)
  .map((line) => line.trim())
  .filter((line) => line && !line.startsWith('sku,'));

/** The product or variant with this SKU: `q` matches product SKUs; variant SKUs are in each product. */
async function findSku(sku) {
  for await (const product of emporium.paginate('/api/v1/products', { params: { query: { limit: 100 } } })) {
    if (product.sku === sku && product.variants.length === 0) return { id: product.id, type: 'product' };
    const variant = product.variants.find((v) => v.sku === sku);
    if (variant) return { id: variant.id, type: 'variant' };
  }
  return undefined;
}

const results = [];
for (const line of lines) {
  const [sku, wanted] = line.split(',').map((part) => part.trim());
  const target = Number(wanted);
  if (!sku || !Number.isInteger(target) || target < 0) {
    results.push({ sku, error: `bad line: ${line}` });
    continue;
  }
  const item = await findSku(sku);
  if (!item) {
    results.push({ sku, error: 'unknown SKU' });
    continue;
  }
  try {
    const level = await emporium.get('/api/v1/inventory/{id}', {
      params: { path: { id: item.id }, query: { type: item.type } },
    });
    const adjustment = target - level.data.inventory;
    if (adjustment === 0) {
      results.push({ sku, inventory: target, adjustment: 0 });
      continue;
    }
    const updated = await emporium.patch('/api/v1/inventory/{id}', {
      params: { path: { id: item.id } },
      body: { type: item.type, adjustment, reason: 'warehouse stock count' },
    });
    results.push({ sku, inventory: updated.data.inventory, adjustment });
  } catch (error) {
    if (!(error instanceof EmporiumError)) throw error;
    results.push({ sku, error: `${error.status} ${error.code}: ${error.message}` });
  }
}
console.log(JSON.stringify(results));
