// Writes every order of a store to a CSV file, newest first, walking the list by cursor (so orders
// placed while it runs never make it repeat or skip one).
//
//   EMPORIUM_URL=http://localhost:3000 EMPORIUM_API_KEY=sk_… node examples/sync-orders-to-csv.mjs orders.csv
//
// Optional: SINCE=2026-11-01T00:00:00Z to export only orders created from then on.
import fs from 'node:fs';
import { createEmporiumClient } from '@emporium/sdk';

const emporium = createEmporiumClient({
  baseUrl: process.env.EMPORIUM_URL ?? 'http://localhost:3000',
  apiKey: process.env.EMPORIUM_API_KEY,
});
const file = process.argv[2] ?? 'orders.csv';
const columns = [
  'order_number',
  'created_at',
  'status',
  'payment_status',
  'fulfillment_status',
  'email',
  'items',
  'total',
];

/** RFC 4180: quote a field that holds a comma, a quote or a line break. */
const field = (value) => {
  const text = value === null || value === undefined ? '' : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
};

const out = fs.createWriteStream(file);
out.write(`${columns.join(',')}\r\n`);
let count = 0;
const query = { limit: 100, ...(process.env.SINCE ? { created_from: process.env.SINCE } : {}) };
for await (const order of emporium.paginate('/api/v1/orders', { params: { query } })) {
  const row = [
    order.order_number,
    order.created_at,
    order.status,
    order.payment_status,
    order.fulfillment_status,
    order.customer.email,
    order.item_count,
    order.total,
  ];
  out.write(`${row.map(field).join(',')}\r\n`);
  count++;
}
await new Promise((resolve, reject) => out.end((error) => (error ? reject(error) : resolve())));
console.log(JSON.stringify({ file, orders: count }));
