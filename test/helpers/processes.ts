import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/**
 * Helpers for process-level tests: real `emporium` processes, launched as `npm run dev` launches
 * the sources (`node --import tsx src/…`; test/unit/packaging.test.ts checks the compiled CLI that
 * `npm start` and `npm run emporium` run agrees with them), on a temporary
 * DATA_DIR, exactly as a user runs them. Every process started here is tracked, so `killLeftovers`
 * can end whatever a failed test left behind (including the embedded cluster of a DATA_DIR).
 */

export const ROOT = path.resolve(import.meta.dirname, '../..');
/** As package.json's `dev` script: one Node process, TypeScript through tsx. */
const LAUNCH = ['--import', 'tsx'];

/** Variables of the surrounding shell that would change what the spawned process does. */
const INHERITED_SETTINGS = [
  'PORT',
  'HOST',
  'PUBLIC_URL',
  'DATA_DIR',
  'DATABASE_URL',
  'REDIS_URL',
  'SMTP_URL',
  'APP_SECRET',
  'RATE_LIMIT_PER_MINUTE',
  'LOG_LEVEL',
  'LOG_FORMAT',
  'NODE_ENV',
  'NODE_OPTIONS',
];

export type Env = Record<string, string | undefined>;

export function processEnv(vars: Env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of INHERITED_SETTINGS) delete env[name];
  for (const [name, value] of Object.entries(vars)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

export function makeDataDir(label = 'proc'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `emporium-${label}-`));
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function signal(pid: number | undefined, sig: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

export async function waitUntil(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(25);
  }
}

// ---------------------------------------------------------------------------------------------
// The embedded cluster of a DATA_DIR

/** The postmaster of DATA_DIR's embedded cluster, from DATA_DIR/postgres/postmaster.pid. */
export function postmaster(dataDir: string): { pid: number; port: number } | undefined {
  try {
    const lines = fs.readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n');
    const pid = Number(lines[0]);
    const port = Number(lines[3]);
    return Number.isInteger(pid) && pid > 0 ? { pid, port } : undefined;
  } catch {
    return undefined;
  }
}

export function postmasterAlive(dataDir: string): boolean {
  const info = postmaster(dataDir);
  return info !== undefined && isAlive(info.pid);
}

/** Connection string of DATA_DIR's application database (password from DATA_DIR/secrets.json). */
export function embeddedDatabaseUrl(dataDir: string): string {
  const info = postmaster(dataDir);
  if (!info) throw new Error(`no embedded cluster in ${dataDir}`);
  const secrets = JSON.parse(fs.readFileSync(path.join(dataDir, 'secrets.json'), 'utf8')) as {
    postgresPassword: string;
  };
  return `postgres://emporium:${encodeURIComponent(secrets.postgresPassword)}@127.0.0.1:${info.port}/emporium`;
}

/**
 * Every process of DATA_DIR's embedded cluster, the postmaster and its backends, also orphaned ones
 * whose postmaster is gone: PostgreSQL processes run with the data directory as their working
 * directory (Linux /proc; processes of another user are not visible unless run as root).
 */
export function clusterPids(dataDir: string): number[] {
  const pgdata = path.join(fs.realpathSync(dataDir), 'postgres');
  const pids: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (fs.readlinkSync(`/proc/${name}/cwd`) === pgdata) pids.push(Number(name));
    } catch {
      // gone meanwhile, or not ours to inspect
    }
  }
  return pids;
}

/** SIGKILLs the postmaster and waits until it and its children are gone. */
export async function killCluster(dataDir: string): Promise<number> {
  const info = postmaster(dataDir);
  if (!info || !isAlive(info.pid)) throw new Error(`no running cluster in ${dataDir}`);
  const children = childPids(info.pid);
  signal(info.pid, 'SIGKILL');
  await waitUntil(() => !isAlive(info.pid), 10_000, 'the postmaster to die');
  // Its children notice the postmaster's death by themselves; give them a moment.
  await waitUntil(() => children.every((pid) => !isAlive(pid)), 10_000, 'the postmaster children to exit');
  return info.pid;
}

/**
 * Ends everything a DATA_DIR may still run: Emporium processes registered in
 * DATA_DIR/postgres-clients, then the cluster (fast shutdown, SIGKILL if it lingers); removes the dir.
 */
export async function cleanupDataDir(dataDir: string): Promise<void> {
  const clients = path.join(dataDir, 'postgres-clients');
  if (fs.existsSync(clients)) {
    for (const name of fs.readdirSync(clients)) {
      const pid = Number(name);
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid) signal(pid, 'SIGKILL');
    }
  }
  const info = postmaster(dataDir);
  if (info && isAlive(info.pid)) {
    signal(info.pid, 'SIGINT');
    try {
      await waitUntil(() => !isAlive(info.pid), 10_000, 'the cluster to stop');
    } catch {
      signal(info.pid, 'SIGKILL');
    }
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
}

// ---------------------------------------------------------------------------------------------
// Process trees and memory

interface PsRow {
  pid: number;
  ppid: number;
}

function processTable(): PsRow[] {
  return execFileSync('ps', ['-e', '-o', 'pid=,ppid='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((line) => {
      const [pid, ppid] = line.trim().split(/\s+/).map(Number);
      return { pid: pid ?? 0, ppid: ppid ?? 0 };
    });
}

/** All descendants of `pid` (children, grandchildren, …). */
export function childPids(pid: number): number[] {
  const table = processTable();
  const result: number[] = [];
  const queue = [pid];
  while (queue.length) {
    const parent = queue.shift() as number;
    for (const row of table) {
      if (row.ppid === parent) {
        result.push(row.pid);
        queue.push(row.pid);
      }
    }
  }
  return result;
}

/** VmRSS and PSS of one process, in kB (0 when it is gone). */
export function memoryOf(pid: number): { rss: number; pss: number } {
  const field = (file: string, name: string) => {
    try {
      const match = fs.readFileSync(file, 'utf8').match(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm'));
      return match ? Number(match[1]) : 0;
    } catch {
      return 0;
    }
  };
  return { rss: field(`/proc/${pid}/status`, 'VmRSS'), pss: field(`/proc/${pid}/smaps_rollup`, 'Pss') };
}

export function sumMemory(pids: number[]): { rss: number; pss: number; processes: number } {
  let rss = 0;
  let pss = 0;
  for (const pid of pids) {
    const m = memoryOf(pid);
    rss += m.rss;
    pss += m.pss;
  }
  return { rss, pss, processes: pids.length };
}

// ---------------------------------------------------------------------------------------------
// Spawning Emporium

const running = new Set<ChildProcess>();

function spawnEmporium(script: string, args: string[], env: Env): ChildProcess {
  const child = spawn(process.execPath, [...LAUNCH, script, ...args], {
    cwd: ROOT,
    env: processEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  child.on('exit', () => running.delete(child));
  return child;
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `emporium <args>` (or another entry point, e.g. `src/main.ts` for `npm start`) to completion. */
export function runCli(
  args: string[],
  env: Env,
  options: { script?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
  const { script = 'src/cli.ts', timeoutMs = 60_000 } = options;
  return new Promise((resolve, reject) => {
    const child = spawnEmporium(script, args, env);
    let stdout = '';
    let stderr = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`emporium ${args.join(' ')} did not finish within ${timeoutMs} ms\n${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Runs `emporium <args> --json`, expects exit 0 and returns the parsed output. */
export async function runCliJson<T = Record<string, unknown>>(args: string[], env: Env): Promise<T> {
  const result = await runCli([...args, '--json'], env);
  if (result.code !== 0) {
    throw new Error(`emporium ${args.join(' ')} exited ${result.code}\n${result.stderr}${result.stdout}`);
  }
  try {
    return JSON.parse(result.stdout) as T;
  } catch {
    throw new Error(`emporium ${args.join(' ')} printed more than one JSON document:\n${result.stdout}`);
  }
}

export interface LogLine {
  level: string;
  msg: string;
  pid: number;
  [field: string]: unknown;
}

export interface ServerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface HttpResult {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A GET with node:http, so the test controls connections (keep-alive agent, or a fresh socket). */
export function httpGet(
  url: string,
  headers: Record<string, string> = {},
  agent: http.Agent | false = false,
): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers, agent }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () => {
        if (response.complete) resolve({ status: response.statusCode ?? 0, headers: response.headers, body });
        else reject(new Error('response cut short'));
      });
      response.on('error', reject);
    });
    request.on('error', reject);
  });
}

/** A running `emporium serve` (or `npm start`) process. */
export class ServerProcess {
  stdout = '';
  stderr = '';
  /** Milliseconds from spawn to the ready log line. */
  startupMs = 0;
  /** The pid the server logs (that of the Node process running it). */
  serverPid = 0;
  readonly exited: Promise<ServerExit>;
  private exit: ServerExit | undefined;

  private constructor(
    readonly child: ChildProcess,
    readonly port: number,
  ) {
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      this.stdout += chunk;
    });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderr += chunk;
    });
    this.exited = new Promise((resolve) => {
      child.on('close', (code, signal) => {
        this.exit = { code, signal };
        resolve(this.exit);
      });
    });
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Spawns `emporium serve` and waits for the "Emporium ready" log line. */
  static async start(
    env: Env,
    options: { script?: string; args?: string[]; timeoutMs?: number } = {},
  ): Promise<ServerProcess> {
    const port = env.PORT ? Number(env.PORT) : await freePort();
    const script = options.script ?? 'src/cli.ts';
    const args = options.args ?? (script === 'src/cli.ts' ? ['serve'] : []);
    const startedAt = performance.now();
    const child = spawnEmporium(script, args, { LOG_LEVEL: 'info', ...env, PORT: String(port) });
    const server = new ServerProcess(child, port);
    try {
      const ready = await server.waitForLog(
        (line) => line.msg.startsWith('Emporium ready'),
        options.timeoutMs,
      );
      server.startupMs = Math.round(performance.now() - startedAt);
      server.serverPid = ready.pid;
    } catch (error) {
      await server.kill();
      throw error;
    }
    return server;
  }

  /** The structured (JSON) log lines written so far. */
  logLines(): LogLine[] {
    return this.stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as LogLine);
  }

  /** Stdout lines that are not JSON log lines (the one-time demo block). */
  plainLines(): string[] {
    return this.stdout.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('{'));
  }

  async waitForLog(match: (line: LogLine) => boolean, timeoutMs = 60_000): Promise<LogLine> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const found = this.logLines().find(match);
      if (found) return found;
      if (this.exit) {
        throw new Error(
          `emporium exited (${this.exit.code ?? this.exit.signal}) before the expected log line\n${this.stderr}${this.stdout}`,
        );
      }
      await sleep(25);
    }
    throw new Error(`timed out waiting for a log line\n${this.stderr}${this.stdout}`);
  }

  fetch(pathname: string, init: RequestInit = {}): Promise<Response> {
    return fetch(`${this.url}${pathname}`, init);
  }

  /** Sends `sig` to the server and waits for the process to end. */
  async stop(sig: NodeJS.Signals = 'SIGTERM', timeoutMs = 30_000): Promise<ServerExit> {
    signal(this.child.pid, sig);
    const timeout = sleep(timeoutMs).then(() => undefined);
    const result = await Promise.race([this.exited, timeout]);
    if (!result) {
      this.kill();
      throw new Error(`emporium did not exit within ${timeoutMs} ms after ${sig}`);
    }
    return result;
  }

  /** kill -9 of the server (not of a cluster it started: that one lives on, as after a crash). */
  async kill(): Promise<ServerExit> {
    const pids = this.nodePids();
    for (const pid of pids) signal(pid, 'SIGKILL');
    const exit = await this.exited;
    await waitUntil(() => pids.every((pid) => !isAlive(pid)), 10_000, 'the server to die');
    return exit;
  }

  /** The Node processes of this server, without a cluster it spawned. */
  nodePids(): number[] {
    const pids = new Set([this.child.pid, this.serverPid || undefined]);
    return [...pids].filter((pid): pid is number => pid !== undefined);
  }
}

/** SIGKILLs every process spawned by these helpers that is still running. */
export async function killLeftovers(): Promise<void> {
  const children = [...running];
  for (const child of children) {
    if (child.pid !== undefined) {
      for (const pid of childPids(child.pid)) signal(pid, 'SIGKILL');
    }
    child.kill('SIGKILL');
  }
  await Promise.all(
    children.map((child) =>
      child.exitCode !== null || child.signalCode !== null
        ? undefined
        : new Promise((resolve) => child.once('close', resolve)),
    ),
  );
}
