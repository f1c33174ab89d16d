import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openEmbeddedCluster } from '../../src/platform/db/embedded.js';
import { GLIBC_MALLOC, NPM_START_NODE_FLAGS } from '../lib/api-process.js';
import { mb } from '../lib/format.js';
import { freePort, waitFor200 } from '../lib/http.js';
import {
  forceStopTree,
  type Memory,
  memoryOf,
  postmasterPid,
  processTree,
  waitUntilGone,
} from '../lib/proc.js';
import { metric, type Scenario } from '../lib/scenario.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** What `npm start` runs: the server compiled by `npm ci` (the `prepare` script) or `npm run build`. */
const MAIN = path.join(root, 'dist/main.js');
/** How long after "ready" the idle memory is read. */
const SETTLE_MS = 5_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Started {
  child: ChildProcess;
  readyMs: number;
  logFile: string;
  /** The server's PGDATA, for a forced stop. */
  pgdata?: string;
}

/** Spawns a process and times it until `readyPath` on its port answers 200. */
async function spawnUntilReady(
  command: string,
  args: string[],
  options: { port: number; readyPath: string; env: NodeJS.ProcessEnv; logFile: string; pgdata?: string },
): Promise<Started> {
  const out = fs.openSync(options.logFile, 'a');
  const startedAt = performance.now();
  const child = spawn(command, args, { cwd: root, env: options.env, stdio: ['ignore', out, out] });
  fs.closeSync(out);
  let exit: string | undefined;
  child.on('exit', (code, signal) => {
    exit = `exited with ${signal ?? code}`;
  });
  try {
    await waitFor200(`http://127.0.0.1:${options.port}${options.readyPath}`, {
      timeoutMs: 180_000,
      gaveUp: () => exit,
    });
  } catch (error) {
    if (child.pid !== undefined) await forceStopTree(child.pid, options.pgdata);
    const log = fs.existsSync(options.logFile) ? fs.readFileSync(options.logFile, 'utf8').slice(-2000) : '';
    throw new Error(`${(error as Error).message}\n--- ${options.logFile} ---\n${log}`);
  }
  return { child, readyMs: performance.now() - startedAt, logFile: options.logFile, pgdata: options.pgdata };
}

/** SIGTERM, then wait for a clean exit (the whole tree killed after 30 s); returns the exit code. */
async function stop({ child, pgdata }: Started): Promise<number | string | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode ?? child.signalCode;
  const exited = new Promise<number | string | null>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal)),
  );
  child.kill('SIGTERM');
  const timer = setTimeout(() => void forceStopTree(child.pid as number, pgdata), 30_000);
  const code = await exited;
  clearTimeout(timer);
  return code;
}

/**
 * The environment of `npm start` (its glibc malloc settings included) with no database URL, so the
 * server runs its embedded cluster.
 */
function serverEnv(dataDir: string, port: number): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...GLIBC_MALLOC,
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
  };
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'LOG_LEVEL']) delete env[name];
  return env;
}

interface ServerRun {
  readyMs: number;
  /** From spawn to the moment serve() began, per the server's own `startupMs` (module loading). */
  loadMs: number | undefined;
  node: Memory;
  /** RSS of each process of the node tree, e.g. "tsx launcher 48 MB + server 170 MB". */
  nodeBreakdown: string;
  postgres: Memory;
  /** PSS of each postgres process by its role, e.g. "postmaster 7.9 + checkpointer 0.7 + …". */
  postgresBreakdown: string;
  exitCode: number | string | null;
}

/** The `startupMs` the server logs when ready: the time spent inside serve(). */
function serveMs(logFile: string): number | undefined {
  const match = fs.readFileSync(logFile, 'utf8').match(/"startupMs":(\d+)/);
  return match ? Number(match[1]) : undefined;
}

function describe(pid: number): string {
  try {
    const args = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    if (args.some((a) => a.endsWith('.bin/tsx') || a.endsWith('tsx/dist/cli.mjs'))) return 'tsx launcher';
    return 'server';
  } catch {
    return String(pid);
  }
}

/** "postmaster", "checkpointer", "backend idle"…: the title PostgreSQL gives the process. */
function postgresRole(pid: number): string {
  try {
    const title = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
    if (!title.startsWith('postgres:')) return 'postmaster';
    const role = title.slice('postgres:'.length).trim();
    // A client backend: "emporium emporium 127.0.0.1(5432) idle" → "backend idle".
    const state = role.match(/\)\s+(.*)$/);
    return state ? `backend ${state[1]}` : role;
  } catch {
    return String(pid);
  }
}

/** One `npm start` (node dist/main.js) on dataDir: time to /readyz 200, memory SETTLE_MS later, clean stop. */
async function runServer(dataDir: string, label: string): Promise<ServerRun> {
  const port = await freePort();
  const started = await spawnUntilReady(process.execPath, [...NPM_START_NODE_FLAGS, MAIN], {
    port,
    readyPath: '/readyz',
    env: serverEnv(dataDir, port),
    logFile: path.join(dataDir, `server-${label}.log`),
    pgdata: path.join(dataDir, 'postgres'),
  });
  let postmaster: number | undefined;
  try {
    await sleep(SETTLE_MS);
    postmaster = postmasterPid(path.join(dataDir, 'postgres'));
    if (!postmaster) throw new Error(`no postmaster.pid in ${dataDir}/postgres`);
    // The postmaster is spawned by the server, so it is in the server's tree: count it once, as postgres.
    const pgPids = processTree(postmaster);
    const pgSet = new Set(pgPids);
    const nodePids = processTree(started.child.pid as number).filter((pid) => !pgSet.has(pid));
    const node = memoryOf(nodePids);
    const postgres = memoryOf(pgPids);
    const nodeBreakdown = nodePids
      .map((pid) => `${describe(pid)} ${mb(memoryOf([pid]).rssKb).toFixed(0)} MB`)
      .join(' + ');
    const postgresBreakdown = pgPids
      .map((pid) => `${postgresRole(pid)} ${mb(memoryOf([pid]).pssKb).toFixed(1)}`)
      .join(' + ');
    const exitCode = await stop(started);
    const inServe = serveMs(started.logFile);
    return {
      readyMs: started.readyMs,
      loadMs: inServe === undefined ? undefined : started.readyMs - inServe,
      node,
      nodeBreakdown,
      postgres,
      postgresBreakdown,
      exitCode,
    };
  } finally {
    await stop(started);
    // The server stops its cluster on SIGTERM; make sure, so no postgres outlives the benchmark.
    if (postmaster && !(await waitUntilGone(postmaster, 30_000))) {
      try {
        process.kill(postmaster, 'SIGINT');
      } catch {}
      await waitUntilGone(postmaster, 30_000);
    }
  }
}

/** A bare Node HTTP server: start-to-listening time and RSS after the same settling time. */
async function bareNode(logDir: string) {
  const port = await freePort();
  const started = await spawnUntilReady(
    process.execPath,
    ['-e', `require('http').createServer((q,s)=>s.end()).listen(${port},'127.0.0.1')`],
    { port, readyPath: '/', env: process.env, logFile: path.join(logDir, 'bare-node.log') },
  );
  try {
    await sleep(SETTLE_MS);
    return { readyMs: started.readyMs, memory: memoryOf(processTree(started.child.pid as number)) };
  } finally {
    await stop(started);
  }
}

/**
 * A bare PostgreSQL cluster with the embedded settings: initialised and stopped once, then started
 * on its existing data directory (timed) and measured right after it is ready.
 */
async function barePostgres(dataDir: string) {
  const password = randomBytes(12).toString('hex');
  const first = await openEmbeddedCluster({ dataDir, password });
  await first.release();
  const startedAt = performance.now();
  const cluster = await openEmbeddedCluster({ dataDir, password });
  const startMs = performance.now() - startedAt;
  try {
    // Let the backend of the connection openEmbeddedCluster used to check the database exit.
    await sleep(500);
    const pid = postmasterPid(path.join(dataDir, 'postgres'));
    if (!pid) throw new Error(`no postmaster.pid in ${dataDir}/postgres`);
    return { startMs, memory: memoryOf(processTree(pid)) };
  } finally {
    await cluster.release();
  }
}

export const scenario: Scenario = {
  name: 'startup-memory',
  description:
    '`npm start` (node dist/main.js) with an embedded cluster: time to /readyz 200, idle RSS and PSS',

  async run(log) {
    if (!fs.existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`npm run build\` (npm ci builds it)`);
    const loadAverage = os.loadavg()[0] ?? 0;
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'emporium-bench-start-'));
    // As root the embedded cluster runs as `postgres`, which must be able to enter the directory.
    fs.chmodSync(tmp, 0o711);
    try {
      const dataDir = path.join(tmp, 'data');
      fs.mkdirSync(dataDir);
      log('first start on an empty DATA_DIR (initdb, migrations, demo store)…');
      const first = await runServer(dataDir, 'first');
      log(`  ready in ${Math.round(first.readyMs)} ms, exit ${first.exitCode}`);
      log('second start on the same DATA_DIR…');
      const again = await runServer(dataDir, 'again');
      log(`  ready in ${Math.round(again.readyMs)} ms, exit ${again.exitCode}`);
      log('baselines: bare node http server, bare postgres cluster…');
      const node = await bareNode(tmp);
      const pgDir = path.join(tmp, 'bare-pg');
      fs.mkdirSync(pgDir);
      const postgres = await barePostgres(pgDir);

      for (const [label, run] of [
        ['first', first],
        ['again', again],
      ] as const) {
        if (run.exitCode !== 0)
          throw new Error(`the ${label} server did not exit 0 on SIGTERM: ${run.exitCode}`);
      }
      const split = (r: ServerRun) =>
        r.loadMs === undefined
          ? 'no startupMs in the log'
          : `${Math.round(r.loadMs)} ms launching node and loading modules, ${Math.round(r.readyMs - r.loadMs)} ms in serve() (cluster, migrations, app, listen)`;
      const total = (r: ServerRun) => mb(r.node.rssKb + r.postgres.rssKb);
      const totalPss = (r: ServerRun) => mb(r.node.pssKb + r.postgres.pssKb);
      const bareTotal = mb(node.memory.rssKb + postgres.memory.rssKb);
      const bareTotalPss = mb(node.memory.pssKb + postgres.memory.pssKb);
      const bareLabel = {
        start: 'bare `node -e http.createServer().listen()` start to first 200',
        node: 'bare node http server RSS',
        pg: 'bare postgres cluster (embedded settings) RSS right after start',
        total: 'bare node + bare postgres RSS',
        totalPss: 'bare node + bare postgres PSS',
      };
      return {
        notes: [
          `start-up split, existing DATA_DIR: ${split(again)}`,
          `start-up split, empty DATA_DIR: ${split(first)}`,
          `node tree, existing DATA_DIR: ${again.nodeBreakdown}`,
          `memory read ${SETTLE_MS / 1000} s after ready from /proc: node tree = the server (postgres excluded); postgres = postmaster + children`,
          'RSS sums count shared pages once per process (PostgreSQL shared buffers, libraries); the PSS figures divide them among sharers:',
          `  PSS existing start: node ${mb(again.node.pssKb).toFixed(1)} MB + postgres ${mb(again.postgres.pssKb).toFixed(1)} MB = ${totalPss(again).toFixed(1)} MB`,
          `  PSS first start: node ${mb(first.node.pssKb).toFixed(1)} MB + postgres ${mb(first.postgres.pssKb).toFixed(1)} MB = ${totalPss(first).toFixed(1)} MB`,
          `  PSS (MB) per postgres process, first start: ${first.postgresBreakdown}`,
          `  PSS (MB) per postgres process, existing start: ${again.postgresBreakdown}`,
          `  PSS baselines: node ${mb(node.memory.pssKb).toFixed(1)} MB, postgres ${mb(postgres.memory.pssKb).toFixed(1)} MB`,
          `processes: node tree ${again.node.pids.length}, postgres ${again.postgres.pids.length} (first start ${first.postgres.pids.length}; bare postgres ${postgres.memory.pids.length})`,
          `bare postgres start on an existing data dir (same settings): ${Math.round(postgres.startMs)} ms`,
          'the server was stopped with SIGTERM each time (exit 0, its cluster stopped); temp dirs removed',
          `machine load average (1 min) at the start: ${loadAverage.toFixed(2)} on ${os.cpus().length} CPUs (well above ~1 means other work was competing)`,
        ],
        metrics: [
          metric({
            name: 'start-up, empty DATA_DIR (initdb)',
            unit: 'ms',
            ours: first.readyMs,
            baseline: node.readyMs,
            baselineLabel: bareLabel.start,
          }),
          metric({
            name: 'start-up, existing DATA_DIR',
            unit: 'ms',
            ours: again.readyMs,
            baseline: node.readyMs,
            baselineLabel: bareLabel.start,
            // Issue 34: start-up under a second, idle PSS under 100 MB.
            target: { on: 'value', op: '<', value: 1000 },
          }),
          metric({
            name: 'idle RSS node tree',
            unit: 'MB',
            ours: mb(again.node.rssKb),
            baseline: mb(node.memory.rssKb),
            baselineLabel: bareLabel.node,
          }),
          metric({
            name: 'idle RSS postgres',
            unit: 'MB',
            ours: mb(again.postgres.rssKb),
            baseline: mb(postgres.memory.rssKb),
            baselineLabel: bareLabel.pg,
          }),
          metric({
            name: 'idle RSS total',
            unit: 'MB',
            ours: total(again),
            baseline: bareTotal,
            baselineLabel: bareLabel.total,
            target: { on: 'value', op: '<', value: 250 },
          }),
          metric({
            name: 'idle RSS total, after first start',
            unit: 'MB',
            ours: total(first),
            baseline: bareTotal,
            baselineLabel: bareLabel.total,
          }),
          metric({
            name: 'idle PSS total, after first start',
            unit: 'MB',
            ours: totalPss(first),
            baseline: bareTotalPss,
            baselineLabel: bareLabel.totalPss,
            target: { on: 'value', op: '<', value: 100 },
          }),
          metric({
            name: 'idle PSS total, existing DATA_DIR',
            unit: 'MB',
            ours: totalPss(again),
            baseline: bareTotalPss,
            baselineLabel: bareLabel.totalPss,
            target: { on: 'value', op: '<', value: 100 },
          }),
        ],
      };
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  },
};
