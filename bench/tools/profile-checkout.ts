/**
 * Profiles checkout on PostgreSQL's side: N orders of ours (storefront checkout, injected) and N of
 * the bare transaction, each measured by deltas of pg_stat_statements, pg_stat_user_functions,
 * pg_stat_user_tables / indexes and the WAL position. PROFILE_URL: a server with pg_stat_statements
 * preloaded and track_functions = all. Usage: PROFILE_URL=… PROFILE_ORDERS=500 tsx bench/tools/profile-checkout.ts
 */
import fs from 'node:fs';
import { Session } from 'node:inspector/promises';
import pg from 'pg';
import { newId } from '../../src/platform/ids.js';
import { cleanUp, cleanUpStack } from '../lib/cleanup.js';
import { createFreshDatabase } from '../lib/database.js';
import { startAppOn } from '../lib/in-process-app.js';
import { giveContactEmail } from '../lib/notifications-fixture.js';
import { addRegions, REGION_ADDRESSES } from '../lib/regions-fixture.js';

const N = Number(process.env.PROFILE_ORDERS ?? 500);
const adminUrl = process.env.PROFILE_URL ?? 'postgres://postgres@127.0.0.1:55433/postgres';

async function snapshot(c: pg.Client) {
  const wal = (await c.query(`SELECT pg_current_wal_lsn()::text AS lsn`)).rows[0].lsn as string;
  const tables = (
    await c.query(
      `SELECT relname, n_tup_ins::int ins, n_tup_upd::int upd, n_tup_hot_upd::int hot FROM pg_stat_user_tables`,
    )
  ).rows;
  const funcs = (
    await c.query(`SELECT funcname, calls::int, total_time, self_time FROM pg_stat_user_functions`)
  ).rows;
  const stmts = (
    await c.query(
      `SELECT left(regexp_replace(query, '\\s+', ' ', 'g'), 90) q, calls::int, total_exec_time t, rows::int, wal_bytes::bigint wal, shared_blks_dirtied::int dirt
       FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    )
  ).rows;
  return { wal, tables, funcs, stmts };
}
const lsn = (s: string) => {
  const [a, b] = s.split('/');
  return Number.parseInt(a as string, 16) * 2 ** 32 + Number.parseInt(b as string, 16);
};
function diff(
  label: string,
  a: Awaited<ReturnType<typeof snapshot>>,
  b: Awaited<ReturnType<typeof snapshot>>,
) {
  console.log(`\n=== ${label}: per order over ${N} orders`);
  console.log(`WAL bytes/order: ${((lsn(b.wal) - lsn(a.wal)) / N).toFixed(0)}`);
  let rowsIns = 0;
  for (const t of b.tables) {
    const o = a.tables.find((x) => x.relname === t.relname) ?? { ins: 0, upd: 0, hot: 0 };
    const ins = t.ins - o.ins,
      upd = t.upd - o.upd,
      hot = t.hot - o.hot;
    if (ins || upd)
      console.log(
        `  table ${t.relname}: ins ${(ins / N).toFixed(2)} upd ${(upd / N).toFixed(2)} (hot ${(hot / N).toFixed(2)})`,
      );
    rowsIns += ins + upd;
  }
  console.log(`  row versions written/order: ${(rowsIns / N).toFixed(2)}`);
  for (const f of b.funcs) {
    const o = a.funcs.find((x) => x.funcname === f.funcname) ?? { calls: 0, total_time: 0, self_time: 0 };
    const calls = f.calls - o.calls;
    if (calls)
      console.log(
        `  fn ${f.funcname}: calls/order ${(calls / N).toFixed(2)}, self µs/order ${((1000 * (f.self_time - o.self_time)) / N).toFixed(0)}`,
      );
  }
  const rows = b.stmts
    .map((s) => {
      const o = a.stmts.find((x) => x.q === s.q) ?? { calls: 0, t: 0, wal: 0, rows: 0 };
      return { q: s.q, calls: s.calls - o.calls, t: s.t - o.t, wal: Number(s.wal) - Number(o.wal) };
    })
    .filter((s) => s.calls > 0 && !/pg_stat|pg_current_wal/.test(s.q))
    .sort((x, y) => y.t - x.t);
  let total = 0;
  for (const s of rows) total += s.t;
  console.log(`  statements total exec µs/order ${((1000 * total) / N).toFixed(0)}`);
  for (const s of rows.slice(0, 14))
    console.log(
      `  ${((1000 * s.t) / N).toFixed(0).padStart(6)} µs  ${(s.calls / N).toFixed(2)}×  wal ${(s.wal / N).toFixed(0)}  ${s.q}`,
    );
}

const { release, onExit } = cleanUpStack();
try {
  const fresh = await createFreshDatabase(adminUrl, 'ckprof');
  onExit('db', () => fresh.drop());
  const { app, handle } = await startAppOn(fresh.url, onExit, 10);
  const ours = await app.services.stores.createStore({ slug: 'ours', name: 'Ours' });
  const bare = await app.services.stores.createStore({ slug: 'bare', name: 'Bare' });
  await addRegions(handle.db, ours.id);
  await giveContactEmail(app, ours.id);
  const mk = (storeId: string, slug: string) => ({
    id: newId(),
    store_id: storeId,
    name: 'Hot',
    slug,
    status: 'active' as const,
    price: 1999,
    sku: slug,
    inventory: 1e8,
    track_inventory: true,
    options: '[]',
    created_at: new Date(),
    updated_at: new Date(),
  });
  const po = mk(ours.id, 'hot-o'),
    pb = mk(bare.id, 'hot-b');
  await handle.db.insertInto('products').values([po, pb]).execute();
  const c = new pg.Client({ connectionString: fresh.url });
  await c.connect();
  onExit('client', () => c.end());
  const body = (n: number) => ({
    email: `shopper.${n % 100}@bench.example`,
    firstName: 'Bench',
    lastName: `Shopper ${n % 100}`,
    items: [{ productId: po.id, quantity: 1 }],
    shippingAddress: REGION_ADDRESSES[n % REGION_ADDRESSES.length],
    paymentMethod: 'test_card',
    cardToken: 'tok_visa',
  });
  const place = async (n: number) => {
    const r = await app.server.inject({
      method: 'POST',
      url: '/api/storefront/ours/checkout',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(body(n)),
    });
    if (r.statusCode !== 201) throw new Error(r.body);
  };
  for (let n = 0; n < 200; n++) await place(n); // warm: every shopper exists, statements named
  await c.query('SELECT pg_stat_statements_reset()');
  await new Promise((r) => setTimeout(r, 700));
  let a = await snapshot(c);
  const session = new Session();
  const cpuProfile = process.env.PROFILE_CPU;
  if (cpuProfile) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
  }
  const t0 = process.cpuUsage();
  for (let n = 0; n < N; n++) await place(n);
  const cpu = process.cpuUsage(t0);
  if (cpuProfile) {
    const { profile } = await session.post('Profiler.stop');
    fs.writeFileSync(cpuProfile, JSON.stringify(profile));
    session.disconnect();
  }
  await new Promise((r) => setTimeout(r, 700)); // stats flush
  let b = await snapshot(c);
  diff('ours (returning buyers, regions, e-mails on)', a, b);
  console.log(`  node CPU µs/order (inject, sequential): ${((cpu.user + cpu.system) / N).toFixed(0)}`);

  // The bare transaction, as in bench/scenarios/checkout.ts.
  const pool = new pg.Pool({ connectionString: fresh.url, max: 2 });
  onExit('pool', () => pool.end());
  const SQL = {
    takeStock: `UPDATE products SET inventory = inventory - $3, updated_at = now() WHERE store_id = $1 AND id = $2 AND status = 'active' AND (NOT track_inventory OR inventory >= $3) RETURNING name, sku, price`,
    takeNumber: `INSERT INTO order_counters (store_id, next_number) VALUES ($1, 1002) ON CONFLICT (store_id) DO UPDATE SET next_number = order_counters.next_number + 1 RETURNING next_number - 1 AS number`,
    insertOrder: `INSERT INTO orders (id, store_id, order_number, status, payment_status, fulfillment_status, currency, subtotal, total, amount_paid, payment_method, customer_email, customer_first_name, customer_last_name, shipping_address, paid_at, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, 'unfulfilled', $6, $7, $7, $8, $9, $10, $11, $12, $13, $14, $15, $15)`,
    insertLine: `INSERT INTO order_line_items (id, store_id, order_id, product_id, name, sku, quantity, price, position) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 0)`,
  };
  const bareOne = async (n: number) => {
    const cl = await pool.connect();
    try {
      await cl.query('BEGIN');
      const p = (await cl.query(SQL.takeStock, [bare.id, pb.id, 1])).rows[0];
      const num = (await cl.query(SQL.takeNumber, [bare.id])).rows[0].number;
      const id = newId();
      await cl.query(SQL.insertOrder, [
        id,
        bare.id,
        num,
        'processing',
        'paid',
        'USD',
        p.price,
        p.price,
        'test_card',
        `shopper.${n % 100}@bench.example`,
        'Bench',
        'Shopper',
        JSON.stringify({ line1: '1 Main St', city: 'Springfield', postalCode: '12345', country: 'US' }),
        new Date(),
        new Date(),
      ]);
      await cl.query(SQL.insertLine, [newId(), bare.id, id, pb.id, p.name, p.sku, 1, p.price]);
      await cl.query('COMMIT');
    } finally {
      cl.release();
    }
  };
  for (let n = 0; n < 100; n++) await bareOne(n);
  await c.query('SELECT pg_stat_statements_reset()');
  await new Promise((r) => setTimeout(r, 700));
  a = await snapshot(c);
  for (let n = 0; n < N; n++) await bareOne(n);
  await new Promise((r) => setTimeout(r, 700));
  b = await snapshot(c);
  diff('bare', a, b);
  const idx = await c.query(
    `SELECT c.relname t, count(*)::int n FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace s ON s.oid = c.relnamespace WHERE s.nspname = 'public' GROUP BY 1 ORDER BY 1`,
  );
  console.log('\nindexes per table:', idx.rows.map((r) => `${r.t} ${r.n}`).join(', '));
  const trg = await c.query(
    `SELECT c.relname t, tgname, pg_get_triggerdef(t.oid) d FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid WHERE NOT tgisinternal AND c.relname IN ('orders','order_line_items','customers','products','outbox_events','notifications','order_counters','stock_movements','inventory_history','push_deliveries') ORDER BY 1`,
  );
  for (const r of trg.rows) console.log(`trigger ${r.d}`);
} finally {
  await cleanUp(console.log, release);
}
