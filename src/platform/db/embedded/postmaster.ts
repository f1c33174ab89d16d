import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { type Binaries, type RunAs, serverSettings, tail } from './cluster-files.js';
import { EmbeddedClusterError } from './errors.js';
import { isAlive, readPostmasterPid, sleep } from './processes.js';

/**
 * Starting and stopping one postmaster: the port it listens on (the previous one when a restart can
 * keep it), the detached spawn, the wait until postmaster.pid says "ready", a connection check and
 * the fast shutdown. Who may start or stop it, and when, is decided by the callers (ownership.ts,
 * supervision.ts and embedded.ts); this file only does it.
 */

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

export async function canConnect(connectionString: string): Promise<boolean> {
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

export async function startPostmaster(
  pgdata: string,
  owner: RunAs,
  bin: Binaries,
  logFile: string,
  settings: Record<string, string>,
  preferredPort?: number,
  onSpawned?: () => void,
): Promise<{ pid: number; port: number }> {
  const port = await portFor(preferredPort);
  const flags = Object.entries(serverSettings(settings)).flatMap(([k, v]) => ['-c', `${k}=${v}`]);
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
  onSpawned?.();
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

export async function stopPostmaster(pid: number): Promise<void> {
  try {
    process.kill(pid, 'SIGINT'); // fast shutdown: roll back open transactions, checkpoint, exit
  } catch {
    return;
  }
  const deadline = Date.now() + 30_000;
  while (isAlive(pid) && Date.now() < deadline) await sleep(50);
}
