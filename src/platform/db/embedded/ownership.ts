import fs from 'node:fs';
import path from 'node:path';
import { EmbeddedClusterError } from './errors.js';
import { isAlive, sleep } from './processes.js';

/**
 * Which Emporium processes use a DATA_DIR's cluster, and which one may start it. There is no single
 * owner: every process (the server, a worker, a CLI command) registers itself as a file named by its
 * pid in DATA_DIR/postgres-clients; the first one starts the cluster, the last one to leave stops it
 * (entries of dead processes are removed on the way). Starting, and restarting after a crash, happen
 * under DATA_DIR/postgres-start.lock so that two processes never start it together, nor clear the
 * remains of a dead cluster under a fresh one. See docs/decisions.md, "Embedded cluster ownership".
 */

/** Registers this process as a user of the cluster (the folder exists). */
export function registerClient(clientsDir: string): void {
  fs.writeFileSync(path.join(clientsDir, String(process.pid)), '');
}

/** Unregisters this process; true when it was the last live one (so it should stop the cluster). */
export function unregisterClient(clientsDir: string): boolean {
  fs.rmSync(path.join(clientsDir, String(process.pid)), { force: true });
  return liveClients(clientsDir).length === 0;
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

/**
 * Runs `work` holding DATA_DIR's start lock (a file naming the holder's pid, created exclusively),
 * so that one Emporium process at a time starts the cluster; a lock whose holder died is taken over.
 */
export async function withStartLock<T>(lockFile: string, work: () => Promise<T>): Promise<T> {
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
