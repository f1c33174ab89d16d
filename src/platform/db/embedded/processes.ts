import fs from 'node:fs';
import path from 'node:path';

/**
 * What the operating system says about the cluster's processes: the postmaster named in
 * postmaster.pid, whether a pid is alive (and is really this cluster's process, not a reused pid),
 * and the backends a killed postmaster left behind. Read-only; Linux /proc where it helps, kill(pid, 0)
 * elsewhere. Shared by the start, the ownership registry and the supervision.
 */

export function readPostmasterPid(pgdata: string): { pid: number; port: number } | undefined {
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

export function isAlive(pid: number): boolean {
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
export function isClusterProcess(pid: number, pgdata: string): boolean {
  if (!isRunning(pid)) return false;
  try {
    return fs.readlinkSync(`/proc/${pid}/cwd`) === realPath(pgdata);
  } catch (error) {
    // No /proc (not Linux), or a process this user may not inspect: trust kill(pid, 0).
    return (error as NodeJS.ErrnoException).code !== 'ENOENT' || !fs.existsSync('/proc/self');
  }
}

export function realPath(file: string): string {
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
export function processesIn(pgdata: string): ProcessInfo[] {
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

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
