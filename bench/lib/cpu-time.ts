import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { processStats } from './proc.js';

/** Linux /proc readings of CPU time, for servers running in processes other than the bench's. */

let clockTicksPerSecond: number | undefined;

function ticksPerSecond(): number {
  clockTicksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  return clockTicksPerSecond;
}

/** CPU time (user + system, seconds) a process has used so far, from /proc/<pid>/stat. */
export function cpuSecondsOf(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  // "pid (comm) state ppid …": after the last ')', utime and stime are the 12th and 13th fields.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond();
}

export interface MachineCpu {
  /** Ticks of all CPUs together since boot. */
  total: number;
  /** Of those, ticks spent idle or waiting for I/O. */
  idle: number;
}

/** The machine's CPU time so far, all CPUs together, from the first line of /proc/stat. */
export function machineCpu(): MachineCpu {
  const line = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
  // "cpu user nice system idle iowait irq softirq steal …" (guest time is already inside user).
  const ticks = line.trim().split(/\s+/).slice(1, 9).map(Number);
  return {
    total: ticks.reduce((sum, t) => sum + t, 0),
    idle: (ticks[3] ?? 0) + (ticks[4] ?? 0),
  };
}

/** The share (0..1) of all the machine's CPU time that was busy between two readings. */
export function busyShare(before: MachineCpu, after: MachineCpu): number {
  const total = after.total - before.total;
  return total > 0 ? 1 - (after.idle - before.idle) / total : 0;
}

/** CPU time (user + system, seconds) used so far by each PostgreSQL process on this machine (comm `postgres`). */
export function databaseCpu(): Map<number, number> {
  const seconds = new Map<number, number>();
  for (const { pid, comm, fields } of processStats())
    if (comm === 'postgres') seconds.set(pid, (Number(fields[11]) + Number(fields[12])) / ticksPerSecond());
  return seconds;
}

/**
 * The CPU time (seconds) PostgreSQL used between two `databaseCpu` readings: backends, WAL writer,
 * checkpointer, autovacuum, what the database costs when it is local. A process that exited in
 * between (an autovacuum worker) takes its time with it; the benchmarks' pools do not exit.
 */
export function databaseCpuSince(before: Map<number, number>, after = databaseCpu()): number {
  let seconds = 0;
  for (const [pid, used] of after) seconds += used - (before.get(pid) ?? 0);
  return seconds;
}
