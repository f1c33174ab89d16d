import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DEMO_DAYS, DEMO_ORDERS } from '../../src/demo.js';
import { buyersFor } from '../../src/seed/seed.js';
import {
  childPids,
  cleanupDataDir,
  embeddedDatabaseUrl,
  type HttpResult,
  httpGet,
  isAlive,
  killCluster,
  killLeftovers,
  makeDataDir,
  postmaster,
  runCli,
  runCliJson,
  ServerProcess,
  sleep,
  sumMemory,
} from '../helpers/processes.js';

/**
 * The server's life cycle as a user meets it: first start, a CLI beside the running server,
 * crashes (kill -9) and their recovery, graceful shutdown, configuration errors. All but the
 * configuration checks are about the embedded cluster, so they run in the embedded project only.
 */
const embedded = inject('databaseMode') === 'embedded';
/** The demo store's customers: its orders' buyers. */
const DEMO_CUSTOMERS = buyersFor(DEMO_ORDERS);
const DAY_MS = 24 * 3600 * 1000;

afterAll(() => killLeftovers());

/** How many of the store's orders were placed in [from, to). */
async function ordersBetween(server: ServerProcess, key: string, from: number, to: number): Promise<number> {
  const range = `created_from=${new Date(from).toISOString()}&created_to=${new Date(to).toISOString()}`;
  const res = await server.fetch(`/api/v1/orders?limit=1&${range}`, { headers: { 'x-api-key': key } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { meta: { pagination: { total: number } } }).meta.pagination.total;
}

async function customersTotal(server: ServerProcess, key: string): Promise<number> {
  const res = await server.fetch('/api/v1/customers?limit=1', { headers: { 'x-api-key': key } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { meta: { pagination: { total: number } } }).meta.pagination.total;
}

function demoKeyOf(server: ServerProcess): string {
  const match = server.stdout.match(/API key: +(sk_[A-Za-z0-9_-]+)/);
  if (!match?.[1]) throw new Error(`no demo API key printed:\n${server.stdout}`);
  return match[1];
}

describe('configuration errors', () => {
  it('stop the process with exit code 1 and one stderr line naming the variable', async () => {
    const dataDir = path.join(makeDataDir('config'), 'never-created');
    const cases: [string, string, string][] = [
      ['src/cli.ts', 'PORT', 'abc'],
      ['src/main.ts', 'RATE_LIMIT_PER_MINUTE', '0'],
      ['src/main.ts', 'DATABASE_URL', 'mysql://x'],
    ];
    const results = await Promise.all(
      cases.map(([script, name, value]) =>
        runCli(script === 'src/cli.ts' ? ['serve'] : [], { DATA_DIR: dataDir, [name]: value }, { script }),
      ),
    );
    results.forEach((result, i) => {
      const [script, name] = cases[i] as [string, string, string];
      expect({ script, code: result.code, stdout: result.stdout }).toEqual({ script, code: 1, stdout: '' });
      const lines = result.stderr.trimEnd().split('\n');
      expect(lines, result.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`^emporium: ${name}: `));
    });
    // Nothing was started or created before the configuration was read.
    expect(fs.existsSync(dataDir)).toBe(false);
    fs.rmSync(path.dirname(dataDir), { recursive: true, force: true });
  });
});

describe.runIf(embedded)('an embedded installation, from first start to crashes and shutdown', () => {
  let dataDir: string;
  let env: Record<string, string>;
  let server: ServerProcess;
  let demoKey: string;
  let sideKey: string;
  const stores = ['demo'];

  beforeAll(() => {
    dataDir = makeDataDir('lifecycle');
    env = { DATA_DIR: dataDir };
  });
  afterAll(async () => {
    await killLeftovers();
    await cleanupDataDir(dataDir);
  });

  async function storeSlugs(): Promise<string[]> {
    const client = new pg.Client({ connectionString: embeddedDatabaseUrl(dataDir) });
    await client.connect();
    try {
      const { rows } = await client.query<{ slug: string }>('SELECT slug FROM stores ORDER BY slug');
      return rows.map((row) => row.slug);
    } finally {
      await client.end();
    }
  }

  /** Everything written before the crashes is there, and the keys made before them still work. */
  async function expectNothingLost() {
    expect(await storeSlugs()).toEqual([...stores].sort());
    expect(await customersTotal(server, demoKey)).toBe(DEMO_CUSTOMERS);
    expect(await customersTotal(server, sideKey)).toBe(0);
  }

  it('prints the demo store block once on an empty DATA_DIR; its key works over HTTP', async () => {
    server = await ServerProcess.start(env);
    console.log(`first start (initdb included): ready ${server.startupMs} ms after spawn`);
    const block = server.plainLines();
    expect(block).toHaveLength(7);
    expect(block[0]).toContain('Emporium created a demo store on first start');
    // The shop first: it is what a person opens.
    expect(block[1]).toMatch(new RegExp(`shop: +http://localhost:${server.port}/shop/demo/$`));
    const shop = await server.fetch('/shop/demo/');
    expect(shop.status).toBe(200);
    expect(await shop.text()).toContain('Demo Store');
    expect(block[2]).toMatch(new RegExp(`admin: +http://localhost:${server.port}/admin$`));
    expect(block[3]).toMatch(/login: +admin@demo\.local \/ \S{12,}$/);
    demoKey = demoKeyOf(server);
    expect(demoKey).toMatch(/^sk_[A-Za-z0-9_-]{43,}$/);
    expect(await customersTotal(server, demoKey)).toBe(DEMO_CUSTOMERS);
    const res = await server.fetch('/api/v1/customers', { headers: { 'x-api-key': demoKey } });
    expect(((await res.json()) as { data: unknown[] }).data).toHaveLength(20);
  });

  it('the demo store has its orders spread over the last 90 days, so the overview has charts', async () => {
    const now = Date.now();
    const from = now - DEMO_DAYS * DAY_MS;
    expect(await ordersBetween(server, demoKey, 0, now + 60_000)).toBe(DEMO_ORDERS);
    expect(await ordersBetween(server, demoKey, 0, from)).toBe(0);
    // Every month of the three has a share of them (a third each, give or take).
    for (let month = 0; month < 3; month++) {
      const count = await ordersBetween(
        server,
        demoKey,
        from + month * 30 * DAY_MS,
        from + (month + 1) * 30 * DAY_MS,
      );
      expect(count, `month ${month}`).toBeGreaterThan(DEMO_ORDERS / 6);
    }
    // The dashboard overview's report: revenue on the days of the last 30.
    const report = await server.fetch('/api/v1/analytics', { headers: { 'x-api-key': demoKey } });
    expect(report.status).toBe(200);
    const { data } = (await report.json()) as {
      data: {
        totals: { revenue: number; orders: number };
        previous_period: { orders: number };
        timeseries: { orders: number }[];
        top_products: unknown[];
      };
    };
    expect(data.totals.revenue).toBeGreaterThan(0);
    expect(data.previous_period.orders).toBeGreaterThan(0);
    expect(data.timeseries).toHaveLength(30);
    expect(data.timeseries.filter((day) => day.orders > 0).length).toBeGreaterThan(15);
    expect(data.top_products.length).toBeGreaterThan(0);
  });

  it('a CLI command on the same DATA_DIR uses the running cluster and leaves it running', async () => {
    const cluster = postmaster(dataDir);
    expect(cluster && isAlive(cluster.pid)).toBe(true);
    // The server keeps answering while the CLI processes come and go.
    let cliRunning = true;
    const probes: number[] = [];
    const probing = (async () => {
      while (cliRunning) {
        probes.push((await server.fetch('/readyz')).status);
        await sleep(50);
      }
    })();
    try {
      const store = await runCliJson<{ store: { id: string } }>(
        ['store', 'create', '--slug', 'side', '--name', 'Side'],
        env,
      );
      stores.push('side');
      expect(store.store.id).toBeTruthy();
      const key = await runCliJson<{ key: string }>(
        ['api-key', 'create', '--store', 'side', '--scopes', 'customers:read'],
        env,
      );
      sideKey = key.key;
    } finally {
      cliRunning = false;
      await probing;
    }
    expect(probes.length).toBeGreaterThan(0);
    expect(new Set(probes)).toEqual(new Set([200]));

    expect(postmaster(dataDir)).toEqual(cluster);
    expect(isAlive(cluster?.pid ?? 0)).toBe(true);
    expect((await server.fetch('/readyz')).status).toBe(200);
    expect(await customersTotal(server, sideKey)).toBe(0);
    expect(await customersTotal(server, demoKey)).toBe(DEMO_CUSTOMERS);
  });

  it('never writes an API key to the structured log', async () => {
    const unknownKey = `sk_${'x'.repeat(43)}`;
    const requests: [string, Record<string, string>][] = [
      ['/api/v1/customers', { 'x-api-key': demoKey }],
      ['/api/v1/customers?limit=2', { 'x-api-key': sideKey }],
      ['/api/v1/customers', { 'x-api-key': unknownKey }],
      ['/api/v1/customers/not-a-customer', { 'x-api-key': demoKey }],
      ['/api/v1/customers', { authorization: `Bearer ${demoKey}`, cookie: `emporium_admin=${sideKey}` }],
    ];
    const ids = requests.map((_, i) => `log-check-${i}`);
    const statuses = await Promise.all(
      requests.map(async ([url, headers], i) => {
        const res = await server.fetch(url, { headers: { ...headers, 'x-request-id': ids[i] as string } });
        await res.arrayBuffer();
        return res.status;
      }),
    );
    expect(statuses).toEqual([200, 200, 401, 404, 401]);
    for (const id of ids) {
      await server.waitForLog((line) => line.reqId === id && line.msg === 'request', 10_000);
    }

    const jsonLines = server.stdout.split('\n').filter((line) => line.startsWith('{'));
    // The requests were logged (so this checks something), one line each, with no secret in them.
    const logged = server.logLines().filter((line) => ids.includes(line.reqId as string));
    expect(logged.map((line) => line.reqId).sort()).toEqual([...ids].sort());
    for (const key of [demoKey, sideKey, unknownKey]) {
      expect(jsonLines.filter((line) => line.includes(key))).toEqual([]);
    }
    // The one place the demo key appears: the block printed once on first start.
    expect(server.stdout.split('Emporium created a demo store').length - 1).toBe(1);
    expect(server.plainLines().filter((line) => line.includes(demoKey))).toHaveLength(2); // key + curl
  });

  it('a second start on the same DATA_DIR prints no demo block; startup time and idle memory', async () => {
    expect(await server.stop()).toEqual({ code: 0, signal: null });
    expect(postmaster(dataDir)).toBeUndefined(); // stopped cleanly: postmaster.pid removed

    server = await ServerProcess.start(env);
    const ready = server.logLines().find((l) => l.msg.startsWith('Emporium ready'));
    console.log(
      `startup on an existing DATA_DIR: ready ${server.startupMs} ms after spawn (startupMs logged by the server: ${ready?.startupMs})`,
    );
    expect(server.plainLines()).toEqual([]);
    expect(server.stdout).not.toContain(demoKey);
    expect(await customersTotal(server, demoKey)).toBe(DEMO_CUSTOMERS);

    const measure = () => {
      const cluster = postmaster(dataDir);
      const node = sumMemory(server.nodePids());
      const pgPids = cluster ? [cluster.pid, ...childPids(cluster.pid)] : [];
      const postgres = sumMemory(pgPids);
      return { node, postgres, totalRssMb: Math.round((node.rss + postgres.rss) / 1024) };
    };
    const afterStart = measure();
    await sleep(5_000);
    const idle = measure();
    const mb = (kb: number) => `${Math.round(kb / 1024)} MB`;
    for (const [label, m] of [
      ['after startup', afterStart],
      ['after 5 s idle', idle],
    ] as const) {
      console.log(
        `idle memory ${label}: total RSS ${m.totalRssMb} MB = node ${mb(m.node.rss)} (${m.node.processes} process) + postgres ${mb(m.postgres.rss)} (${m.postgres.processes} processes); PSS node ${mb(m.node.pss)} + postgres ${mb(m.postgres.pss)} = ${mb(m.node.pss + m.postgres.pss)}`,
      );
    }
    expect(idle.postgres.processes).toBeGreaterThan(1);
  });

  it('kill -9 of the server: the next start attaches to the orphaned cluster, nothing is lost', async () => {
    await runCliJson(['store', 'create', '--slug', 'before-crash', '--name', 'Before'], env);
    stores.push('before-crash');
    const cluster = postmaster(dataDir);

    expect(await server.kill()).toEqual({ code: null, signal: 'SIGKILL' });
    expect(isAlive(cluster?.pid ?? 0)).toBe(true); // the cluster outlives its parent

    server = await ServerProcess.start(env);
    expect(postmaster(dataDir)).toEqual(cluster); // attached, not restarted
    expect(server.logLines().some((l) => l.msg.startsWith('embedded PostgreSQL started'))).toBe(false);
    expect(server.plainLines()).toEqual([]);
    await expectNothingLost();
  });

  it('kill -9 of the server and of the cluster: crash recovery at the next start, nothing is lost', async () => {
    await runCliJson(['store', 'create', '--slug', 'before-second-crash', '--name', 'Before'], env);
    stores.push('before-second-crash');
    const old = postmaster(dataDir);
    await server.kill();
    await killCluster(dataDir);
    const logSize = fs.statSync(path.join(dataDir, 'postgres.log')).size;

    server = await ServerProcess.start(env);
    const cluster = postmaster(dataDir);
    expect(cluster?.pid).not.toBe(old?.pid);
    expect(server.logLines().some((l) => l.msg.startsWith('embedded PostgreSQL started'))).toBe(true);
    const pgLog = fs.readFileSync(path.join(dataDir, 'postgres.log'), 'utf8').slice(logSize);
    expect(pgLog).toContain('automatic recovery in progress');
    await expectNothingLost();
  });

  it('SIGTERM: stops accepting, completes every accepted request, stops the cluster, exits 0', async () => {
    // At `debug` the server logs each request as it arrives ("incoming request"): which it accepted.
    expect(await server.stop()).toEqual({ code: 0, signal: null });
    server = await ServerProcess.start({ ...env, LOG_LEVEL: 'debug' });
    const cluster = postmaster(dataDir);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
    // Hold a lock on customers so that customer lists are in flight when SIGTERM arrives.
    const locker = new pg.Client({ connectionString: embeddedDatabaseUrl(dataDir) });
    locker.on('error', () => {}); // the cluster stops under it if the test fails half-way
    await locker.connect();
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE customers IN ACCESS EXCLUSIVE MODE');
    let locked = true;
    try {
      const slowIds = ['slow-0', 'slow-1', 'slow-2'];
      const slow = slowIds.map((id) =>
        httpGet(
          `${server.url}/api/v1/customers?limit=5`,
          { 'x-api-key': demoKey, 'x-request-id': id },
          agent,
        ),
      );
      const slowSettled = Promise.allSettled(slow);
      for (const id of slowIds) {
        await server.waitForLog((l) => l.reqId === id && l.msg === 'incoming request', 10_000);
      }

      // Meanwhile, a stream of quick requests on keep-alive connections, across the SIGTERM.
      let streaming = true;
      const quick: { id: string; result?: HttpResult; error?: Error }[] = [];
      const streams = Array.from({ length: 4 }, async (_, s) => {
        for (let n = 0; streaming; n++) {
          const entry: (typeof quick)[number] = { id: `quick-${s}-${n}` };
          quick.push(entry);
          try {
            entry.result = await httpGet(`${server.url}/healthz`, { 'x-request-id': entry.id }, agent);
          } catch (error) {
            entry.error = error as Error;
            await sleep(20);
          }
        }
      });
      await sleep(200);

      server.child.kill('SIGTERM');
      await server.waitForLog((l) => l.msg.startsWith('shutting down'), 10_000);
      // No longer accepting: new connections are refused (once Fastify has closed its listener) ...
      const deadline = Date.now() + 10_000;
      while (true) {
        const attempt = await httpGet(`${server.url}/healthz`).catch((error: NodeJS.ErrnoException) => error);
        if (attempt instanceof Error) {
          expect(attempt).toMatchObject({ code: 'ECONNREFUSED' });
          break;
        }
        if (Date.now() > deadline) throw new Error('new connections still accepted 10 s after SIGTERM');
        await sleep(50);
      }
      await sleep(300);
      // ... while the accepted requests are still being served and the process waits for them.
      expect(server.child.exitCode).toBeNull();
      expect(isAlive(cluster?.pid ?? 0)).toBe(true);

      streaming = false;
      await Promise.all(streams);
      await locker.query('COMMIT');
      await locker.end();
      locked = false;

      for (const settled of await slowSettled) {
        expect(settled.status).toBe('fulfilled');
        const response = (settled as PromiseFulfilledResult<HttpResult>).value;
        expect(response.status).toBe(200);
        expect(JSON.parse(response.body).meta.pagination.total).toBe(DEMO_CUSTOMERS);
      }
      // Every quick request the server accepted (logged as incoming) got its complete response.
      const accepted = new Set(
        server
          .logLines()
          .filter((l) => l.msg === 'incoming request')
          .map((l) => l.reqId),
      );
      const answered = quick.filter((q) => q.result);
      expect(answered.length).toBeGreaterThan(0);
      for (const q of quick) {
        if (accepted.has(q.id))
          expect(q.result?.status, `${q.id}: ${q.error?.message}`).toBeOneOf([200, 503]);
      }
      for (const q of answered) expect(JSON.parse(q.result?.body ?? '')).toBeTypeOf('object');

      expect(await server.exited).toEqual({ code: 0, signal: null });
      expect(server.logLines().at(-1)?.msg).toBe('shutdown complete');
      expect(isAlive(cluster?.pid ?? 0)).toBe(false);
      expect(postmaster(dataDir)).toBeUndefined();
      console.log(
        `SIGTERM drain: ${slowIds.length} locked requests completed after SIGTERM; quick requests: ${answered.length} answered, ${quick.length - answered.length} refused or reset before being accepted`,
      );
    } finally {
      if (locked) await locker.end().catch(() => {});
      agent.destroy();
    }
  });
});
