import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { ProcessGroup } from '../helpers/process-group.js';
import {
  cleanupDataDir,
  clusterPids,
  isAlive,
  killLeftovers,
  makeDataDir,
  postmaster,
  ServerProcess,
  sleep,
  waitUntil,
} from '../helpers/processes.js';

/**
 * The embedded cluster dies under a running server (kill -9 of the postmaster; its backends left to
 * notice by themselves, one of them unable to, so it lingers): the server restarts it (PostgreSQL crash recovery) and is ready again within
 * seconds, with every order it acknowledged before the crash; a second Emporium process on the same
 * DATA_DIR (a worker) follows the restarted cluster. When the cluster cannot be restarted, the server
 * exits 1 with one clear line instead of answering 503 for ever. The real server runs the cluster with
 * PostgreSQL's default durability (fsync on), so an acknowledged commit is on disk.
 */
const embedded = inject('databaseMode') === 'embedded';

const group = new ProcessGroup();
afterAll(async () => {
  await group.killAll();
  await killLeftovers();
});

function demoKeyOf(server: ServerProcess): string {
  const match = server.stdout.match(/API key: +(sk_[A-Za-z0-9_-]+)/);
  if (!match?.[1]) throw new Error(`no demo API key printed:\n${server.stdout}`);
  return match[1];
}

async function createProduct(server: ServerProcess, key: string): Promise<string> {
  const res = await server.fetch('/api/v1/products', {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Crash test', price: '9.99', status: 'active', inventory: 1_000_000 }),
  });
  const body = (await res.json()) as { data: { id: string } };
  if (res.status !== 201) throw new Error(`product create answered ${res.status}: ${JSON.stringify(body)}`);
  return body.data.id;
}

describe.runIf(embedded)('the embedded cluster dies under a running server', () => {
  it('is restarted: ready again within 10 s, every acknowledged order kept, a worker beside it follows', async () => {
    const dataDir = makeDataDir('pg-crash');
    const env = { DATA_DIR: dataDir, RATE_LIMIT_PER_MINUTE: '1000000' };
    try {
      const server = await ServerProcess.start(env);
      const key = demoKeyOf(server);
      const productId = await createProduct(server, key);
      const worker = await group.start('worker', ['worker'], { ...env, LOG_LEVEL: 'info' }, async (p) =>
        p.stdout.includes('background worker started'),
      );

      // Orders written by 4 clients without pause, right up to the crash (and through it).
      const acknowledged: string[] = [];
      const refused: number[] = [];
      let writing = true;
      const writers = Array.from({ length: 4 }, async (_, w) => {
        for (let n = 0; writing; n++) {
          try {
            const res = await server.fetch('/api/v1/orders', {
              method: 'POST',
              headers: { 'x-api-key': key, 'content-type': 'application/json' },
              body: JSON.stringify({
                customer: { email: `crash.${w}.${n}@example.com` },
                items: [{ product_id: productId, quantity: 1 }],
                // The demo store ships by zone and taxes by region: an order names where it goes.
                shipping_address: {
                  line1: '1 Main St',
                  city: 'Springfield',
                  postal_code: '62701',
                  country: 'US',
                  region: 'IL',
                },
              }),
            });
            const body = (await res.json()) as { data?: { id: string } };
            if (res.status === 201 && body.data) acknowledged.push(body.data.id);
            else {
              refused.push(res.status);
              await sleep(50);
            }
          } catch {
            await sleep(50);
          }
        }
      });
      await waitUntil(() => acknowledged.length >= 50, 30_000, '50 acknowledged orders');

      const old = postmaster(dataDir);
      expect(old && isAlive(old.pid)).toBe(true);
      const beforeKill = acknowledged.length;
      // One backend cannot notice its postmaster's death (stopped): it keeps the old shared memory
      // attached, which makes PostgreSQL refuse to start until it is gone.
      const backends = clusterPids(dataDir).filter((pid) => pid !== old?.pid);
      const stuck = backends[0] ?? 0;
      expect(stuck).toBeGreaterThan(0);
      process.kill(stuck, 'SIGSTOP');
      process.kill(old?.pid ?? 0, 'SIGKILL');
      const killedAt = performance.now();
      const acknowledgedAtKill = [...acknowledged];

      // The process stays alive (healthz 200) and becomes ready again by itself.
      // (Backends still alive for a moment after the kill may answer: ready counts after a 503.)
      let readyMs = 0;
      let unreadyMs = 0;
      const statuses = new Set<number>();
      while (performance.now() - killedAt < 30_000) {
        const res = await server.fetch('/readyz').catch(() => undefined);
        if (res) statuses.add(res.status);
        if (res?.status === 503 && !unreadyMs) unreadyMs = Math.round(performance.now() - killedAt);
        if (res?.status === 200 && unreadyMs) {
          readyMs = Math.round(performance.now() - killedAt);
          break;
        }
        expect((await server.fetch('/healthz')).status).toBe(200);
        await sleep(100);
      }
      // Orders are taken again once it is ready.
      await waitUntil(
        () => acknowledged.length >= acknowledgedAtKill.length + 10,
        10_000,
        'orders to be acknowledged again',
      );
      writing = false;
      await Promise.all(writers);
      const cluster = postmaster(dataDir);
      console.log(
        `kill -9 of the postmaster ${old?.pid}: /readyz 503 from ${unreadyMs} ms, 200 again ${readyMs} ms after the kill (new postmaster ${cluster?.pid}); ${beforeKill} orders acknowledged before the kill, ${acknowledged.length} in all, ${refused.length} refused (${[...new Set(refused)].join(', ')}); readyz answers seen: ${[...statuses].join(', ')}`,
      );
      const outputs: [string, string][] = [
        ['server', server.stdout],
        ['worker', worker.stdout],
      ];
      for (const [name, text] of outputs) {
        for (const line of text.split('\n').filter((l) => l.includes('PostgreSQL') && l.startsWith('{'))) {
          const { time, msg } = JSON.parse(line) as { time: number; msg: string };
          console.log(`  ${name} ${new Date(time).toISOString().slice(11, 23)} ${msg.split('\n')[0]}`);
        }
      }
      expect(readyMs).toBeGreaterThan(0);
      expect(readyMs).toBeLessThan(10_000);
      expect(cluster?.pid).not.toBe(old?.pid);
      expect(server.child.exitCode).toBeNull();

      // Every order acknowledged before the kill, and after it, is there.
      const missing: string[] = [];
      for (const id of acknowledged) {
        const res = await server.fetch(`/api/v1/orders/${id}`, { headers: { 'x-api-key': key } });
        if (res.status !== 200) missing.push(`${id}: ${res.status}`);
        await res.arrayBuffer();
      }
      expect(missing).toEqual([]);
      expect(acknowledgedAtKill.length).toBeGreaterThanOrEqual(50);

      // The log says what happened; PostgreSQL replayed its WAL.
      expect(clusterPids(dataDir)).not.toContain(stuck); // the lingering backend was cleared away
      expect(`${server.stdout}${worker.stdout}`).toContain('orphaned PostgreSQL process');
      const messages = server.logLines().map((l) => l.msg);
      expect(messages.some((m) => m.includes('stopped unexpectedly'))).toBe(true);
      expect(messages.some((m) => m.startsWith('embedded PostgreSQL restarted'))).toBe(true);
      const pgLog = fs.readFileSync(path.join(dataDir, 'postgres.log'), 'utf8');
      expect(pgLog).toContain('automatic recovery in progress');

      // The worker beside the server is still running and uses the restarted cluster.
      expect(worker.exit).toBeUndefined();
      await waitUntil(
        () => worker.stdout.includes('embedded PostgreSQL restarted'),
        10_000,
        'the worker to follow the restarted cluster',
      );
      // One of the two restarted it (under DATA_DIR's start lock); the other followed.
      const restarts =
        `${server.stdout}${worker.stdout}`.split('embedded PostgreSQL restarted on').length - 1;
      const follows =
        `${server.stdout}${worker.stdout}`.split('restarted by another Emporium process').length - 1;
      expect({ restarts, follows }).toEqual({ restarts: 1, follows: 1 });

      // A clean stop of both still stops the cluster.
      expect(await worker.stop()).toEqual({ code: 0, signal: null });
      expect(await server.stop()).toEqual({ code: 0, signal: null });
      expect(postmaster(dataDir)).toBeUndefined();
      expect(clusterPids(dataDir)).toEqual([]);
    } finally {
      await group.killAll();
      await killLeftovers();
      await cleanupDataDir(dataDir);
    }
  }, 120_000);

  it('exits 1 with one clear line when the cluster cannot be restarted', async () => {
    const dataDir = makeDataDir('pg-crash-fatal');
    try {
      const server = await ServerProcess.start({ DATA_DIR: dataDir });
      // A setting the running cluster has not read yet, which stops every later start.
      fs.appendFileSync(
        path.join(dataDir, 'postgres', 'postgresql.auto.conf'),
        "shared_buffers = 'plenty'\n",
      );
      const old = postmaster(dataDir);
      process.kill(old?.pid ?? 0, 'SIGKILL');
      const killedAt = performance.now();
      const exit = await Promise.race([server.exited, sleep(60_000).then(() => undefined)]);
      const ms = Math.round(performance.now() - killedAt);
      console.log(
        `cluster that cannot start again: server exited ${exit?.code} after ${ms} ms: ${server.stderr.trim()}`,
      );
      expect(exit).toEqual({ code: 1, signal: null });
      const lines = server.stderr.trimEnd().split('\n');
      expect(lines, server.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(/^emporium: the embedded PostgreSQL stopped and could not be restarted: /);
      expect(lines[0]).toContain('postgresql.auto.conf'); // PostgreSQL's own reason
      expect(server.logLines().some((l) => l.level === 'fatal')).toBe(true);
      expect(clusterPids(dataDir)).toEqual([]);
    } finally {
      await killLeftovers();
      await cleanupDataDir(dataDir);
    }
  }, 120_000);
});
