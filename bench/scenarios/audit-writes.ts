import os from 'node:os';
import { cleanUp, cleanUpStack } from '../lib/cleanup.js';
import { listenOnFreePort } from '../lib/http.js';
import { startAppOn, startInProcessApp } from '../lib/in-process-app.js';
import { type MeasuredLoad, warmUpAndMeasure } from '../lib/load.js';
import { envNumber, medianLoad } from '../lib/rounds.js';
import { metric, type Scenario } from '../lib/scenario.js';

/** openDatabase's default pool size, which the app gets in `npm start`. */
const POOL_SIZE = 10;
const TARGET = 0.9;

type Which = 'with audit' | 'without audit';

/**
 * What the audit row costs a merchant write (issue 33: at most 10 % of its throughput): PATCH
 * /api/v1/products/{id} and POST /api/v1/orders/{id}/fulfill through the real app, with the audit row
 * (as deployed) and without it (the same app built with `auditLog: 'off'`, a switch for this bench
 * only), on one database, measured in turn.
 */
export const scenario: Scenario = {
  name: 'audit-writes',
  description:
    'PATCH product and POST fulfil through /api/v1: the real app with its audit row vs the same app without it',

  async run(log) {
    const warmupSec = envNumber('BENCH_WARMUP', 3);
    const durationSec = envNumber('BENCH_DURATION', 10);
    const connections = envNumber('BENCH_CONNECTIONS', 10);
    const rounds = Math.round(envNumber('BENCH_ROUNDS', 1));
    const orderCount = Math.round(envNumber('BENCH_AUDIT_ORDERS', 5_000));
    const notes: string[] = [];
    const { release, onExit } = cleanUpStack();
    try {
      const { fresh, handle, app } = await startInProcessApp(log, notes, onExit, POOL_SIZE);
      const bare = await startAppOn(fresh.url, onExit, POOL_SIZE, { auditLog: 'off' });
      const store = await app.services.stores.createStore({ slug: 'bench-audit', name: 'Bench Audit' });
      const key = await app.services.stores.createApiKey(store.id, { name: 'bench', scopes: 'all' });
      const headers = { 'x-api-key': key.key, 'content-type': 'application/json' };
      const urls: Record<Which, string> = {
        'with audit': await listenOnFreePort(app.server),
        'without audit': await listenOnFreePort(bare.app.server),
      };

      const created = await app.server.inject({
        method: 'POST',
        url: '/api/v1/products',
        headers,
        payload: { name: 'Bench product', price: '10.00', track_inventory: false },
      });
      if (created.statusCode !== 201) throw new Error(`product create: ${created.body}`);
      const productId = created.json().data.id as string;

      // Paid orders to fulfil; after each run they are made unfulfilled again, so every request of a
      // run fulfils an order that can be fulfilled (a 409 would fail the bench).
      const seedStart = performance.now();
      const orderIds: string[] = [];
      const PARALLEL = 32;
      for (let i = 0; i < orderCount; i += PARALLEL) {
        const batch = await Promise.all(
          Array.from({ length: Math.min(PARALLEL, orderCount - i) }, (_, n) =>
            app.server.inject({
              method: 'POST',
              url: '/api/v1/orders',
              headers,
              payload: {
                customer: { email: `buyer${(i + n) % 500}@example.com` },
                items: [{ product_id: productId, quantity: 1 }],
                mark_paid: true,
              },
            }),
          ),
        );
        for (const res of batch) {
          if (res.statusCode !== 201) throw new Error(`order create: ${res.body}`);
          orderIds.push(res.json().data.id);
        }
      }
      log(`created ${orderCount} paid orders in ${Math.round(performance.now() - seedStart)} ms`);
      const unfulfil = async () => {
        await handle.pool.query('DELETE FROM order_fulfillments WHERE store_id = $1', [store.id]);
        await handle.pool.query(
          `UPDATE orders SET status = 'processing', fulfillment_status = 'unfulfilled', fulfilled_at = NULL WHERE store_id = $1`,
          [store.id],
        );
        await handle.pool.query('VACUUM (ANALYZE) orders, order_fulfillments, products, audit_log');
      };

      const kinds = {
        patch: {
          label: 'PATCH /api/v1/products/{id}',
          load: {
            method: 'PATCH' as const,
            path: `/api/v1/products/${productId}`,
            bodies: Array.from({ length: 50 }, (_, i) => JSON.stringify({ name: `Bench product ${i}` })),
          },
        },
        fulfil: {
          label: 'POST /api/v1/orders/{id}/fulfill',
          load: {
            method: 'POST' as const,
            path: '',
            body: JSON.stringify({ carrier: 'UPS', tracking_number: '1Z999' }),
            paths: orderIds.map((id) => `/api/v1/orders/${id}/fulfill`),
          },
        },
      };
      const runs: Record<string, MeasuredLoad[]> = {};
      for (let round = 0; round < rounds; round++) {
        const order: Which[] =
          round % 2 === 0 ? ['with audit', 'without audit'] : ['without audit', 'with audit'];
        for (const [kind, spec] of Object.entries(kinds)) {
          for (const which of order) {
            if (kind === 'fulfil') await unfulfil();
            log(
              `${spec.label}, ${which}: ${warmupSec} s warm-up + ${durationSec} s, ${connections} connections…`,
            );
            const { path, ...load } = spec.load;
            const result = await warmUpAndMeasure({
              ...load,
              url: urls[which] + path,
              headers,
              connections,
              warmupSec: kind === 'fulfil' ? 0 : warmupSec,
              durationSec,
            });
            if (kind === 'fulfil' && result.totalRequests >= orderCount) {
              throw new Error(
                `BENCH_AUDIT_ORDERS (${orderCount}) is too small for ${result.totalRequests} fulfils`,
              );
            }
            (runs[`${kind} ${which}`] ??= []).push(result);
          }
        }
      }
      const audited = await handle.pool.query<{ n: string }>(
        'SELECT count(*) AS n FROM audit_log WHERE store_id = $1',
        [store.id],
      );
      notes.push(
        `load: autocannon in a child process, ${connections} connections, ${warmupSec} s warm-up (PATCH; fulfil runs start cold on ${orderCount} paid orders, made unfulfilled again before each run) then ${durationSec} s measured${rounds > 1 ? `, ${rounds} alternating rounds (medians)` : ''}`,
        'both apps in the bench process on one database, pools of 10, rate limit 1e9/min; "without audit" is the same app built with auditLog: off (bench only)',
        `audit rows written by the run: ${audited.rows[0]?.n}`,
        ...Object.entries(runs).map(
          ([name, list]) =>
            `${name}: ${list.map((r) => `${r.requestsPerSec.toFixed(1)} req/s, p99 ${r.latencyP99Ms} ms`).join('; ')}`,
        ),
        `(load average before the first run: ${os.loadavg()[0]?.toFixed(2)} on ${os.cpus().length} CPUs)`,
      );
      const metrics = Object.entries(kinds).flatMap(([kind, spec]) => {
        const ours = medianLoad(runs[`${kind} with audit`] ?? []);
        const without = medianLoad(runs[`${kind} without audit`] ?? []);
        log(
          `${spec.label}: ${ours.requestsPerSec.toFixed(1)} req/s with the audit row, ${without.requestsPerSec.toFixed(1)} without: ratio ${(ours.requestsPerSec / without.requestsPerSec).toFixed(3)}`,
        );
        return [
          metric({
            name: `${spec.label} throughput`,
            unit: 'req/s',
            ours: ours.requestsPerSec,
            baseline: without.requestsPerSec,
            baselineLabel: 'the same app without the audit row',
            target: { on: 'ratio', op: '>=', value: TARGET },
          }),
          metric({
            name: `${spec.label} p99 latency`,
            unit: 'ms',
            ours: ours.latencyP99Ms,
            baseline: without.latencyP99Ms,
            baselineLabel: 'the same app without the audit row',
          }),
        ];
      });
      return { notes, metrics };
    } finally {
      await cleanUp(log, release);
    }
  },
};
