import fs from 'node:fs';

/** Linux /proc readings: process trees and their resident memory. */

/** Every process visible in /proc now: its pid, command name and the /proc/<pid>/stat fields after it. */
export function* processStats(): Generator<{ pid: number; comm: string; fields: string[] }> {
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // The process exited while we were reading.
    }
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so read after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    yield { pid: Number(entry), comm: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), fields };
  }
}

/** pid → parent pid for every process visible in /proc. */
export function parentTable(): Map<number, number> {
  const table = new Map<number, number>();
  for (const { pid, fields } of processStats()) table.set(pid, Number(fields[1]));
  return table;
}

/** The pid and all its descendants that are alive now. */
export function processTree(root: number, table = parentTable()): number[] {
  const children = new Map<number, number[]>();
  for (const [pid, ppid] of table) children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  const tree: number[] = [];
  const queue = table.has(root) ? [root] : [];
  while (queue.length) {
    const pid = queue.shift() as number;
    tree.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return tree;
}

function statusField(pid: number, file: string, field: string): number {
  try {
    const match = fs
      .readFileSync(`/proc/${pid}/${file}`, 'utf8')
      .match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

export interface Memory {
  pids: number[];
  /** Sum of VmRSS (kB): counts shared pages (PostgreSQL's shared buffers, libraries) once per process. */
  rssKb: number;
  /** Sum of Pss (kB): shared pages divided among their sharers, so the sum is what the tree really holds. */
  pssKb: number;
}

export function memoryOf(pids: Iterable<number>): Memory {
  const list = [...new Set(pids)];
  return {
    pids: list,
    rssKb: list.reduce((sum, pid) => sum + statusField(pid, 'status', 'VmRSS'), 0),
    pssKb: list.reduce((sum, pid) => sum + statusField(pid, 'smaps_rollup', 'Pss'), 0),
  };
}

/** The postmaster's pid from PGDATA/postmaster.pid, if the file is there. */
export function postmasterPid(pgdata: string): number | undefined {
  try {
    const pid = Number(fs.readFileSync(`${pgdata}/postmaster.pid`, 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Alive and not a zombie (an exited child nobody has reaped yet still answers kill 0). */
export function isAlive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

export async function waitUntilGone(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  return !isAlive(pid);
}

/**
 * Last resort for a process we started that did not stop when asked: its PostgreSQL (if any) gets a
 * fast shutdown first, then every remaining process of its tree is killed, children included (killing
 * only a launcher such as tsx would orphan the real server).
 */
export async function forceStopTree(root: number, pgdata?: string): Promise<void> {
  const postmaster = pgdata ? postmasterPid(pgdata) : undefined;
  if (postmaster && isAlive(postmaster)) {
    try {
      process.kill(postmaster, 'SIGINT');
    } catch {}
    await waitUntilGone(postmaster, 30_000);
  }
  for (const pid of processTree(root).reverse()) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {}
  }
}

/** One mapping of /proc/<pid>/smaps: its address range, what backs it, and its resident kB. */
export interface Mapping {
  start: string;
  /** Size of the range in kB. */
  sizeKb: number;
  perms: string;
  /** [heap], [stack], a file path, or '' for an anonymous mapping. */
  name: string;
  rssKb: number;
}

/** Every mapping of a process (empty if it is gone). */
export function mappingsOf(pid: number): Mapping[] {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/smaps`, 'utf8');
  } catch {
    return [];
  }
  const mappings: Mapping[] = [];
  let current: Mapping | undefined;
  for (const line of text.split('\n')) {
    const header = line.match(/^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/);
    if (header) {
      const [, start = '0', end = '0', perms = '', name = ''] = header;
      current = {
        start,
        sizeKb: Number((BigInt(`0x${end}`) - BigInt(`0x${start}`)) / 1024n),
        perms,
        name: name.trim(),
        rssKb: 0,
      };
      mappings.push(current);
    } else if (current && line.startsWith('Rss:')) {
      current.rssKb = Number(line.match(/(\d+)/)?.[1] ?? 0);
    }
  }
  return mappings;
}

/**
 * Resident kB by kind of mapping: `brk heap` (glibc's main arena), `anon 64 MB-aligned` (glibc's
 * other arenas reserve 64 MB heaps), `anon ≥ 256 MB` (reservations: V8's code range, WebAssembly
 * memories), `anon 256 KB-aligned` (V8's heap pages are 256 KB, aligned; adjacent ones merge), `anon` (V8's pages, large malloc chunks, thread stacks), `files`
 * (code and data of libraries, node itself), `other` ([stack], vdso…).
 */
export function residentByKind(mappings: Mapping[]): Record<string, number> {
  const kinds: Record<string, number> = {
    'brk heap': 0,
    'anon 64 MB-aligned': 0,
    anon: 0,
    files: 0,
    other: 0,
  };
  const arenaAligned = (start: string) => BigInt(`0x${start}`) % (64n * 1024n * 1024n) === 0n;
  for (const m of mappings) {
    const kind =
      m.name === '[heap]'
        ? 'brk heap'
        : m.name === ''
          ? arenaAligned(m.start) && m.perms.startsWith('rw') && m.sizeKb <= 64 * 1024
            ? 'anon 64 MB-aligned'
            : m.sizeKb >= 256 * 1024
              ? 'anon ≥ 256 MB'
              : BigInt(`0x${m.start}`) % (256n * 1024n) === 0n && m.sizeKb % 256 === 0
                ? 'anon 256 KB-aligned'
                : 'anon'
          : m.name.startsWith('/')
            ? 'files'
            : 'other';
    kinds[kind] = (kinds[kind] ?? 0) + m.rssKb;
  }
  return kinds;
}

/**
 * kB mapped read-write in V8's page-aligned anonymous mappings (what `anon 256 KB-aligned` can grow
 * to): the heap's committed pages plus the freed pages V8 keeps in its pool. Node 24's V8 does not
 * count pooled pages in total_heap_size and releases them only in a memory-reducing collection.
 */
export function v8PagesMappedKb(mappings: Mapping[]): number {
  return mappings
    .filter(
      (m) =>
        m.name === '' &&
        m.perms.startsWith('rw') &&
        m.sizeKb < 256 * 1024 &&
        m.sizeKb % 256 === 0 &&
        BigInt(`0x${m.start}`) % (256n * 1024n) === 0n &&
        BigInt(`0x${m.start}`) % (64n * 1024n * 1024n) !== 0n,
    )
    .reduce((sum, m) => sum + m.sizeKb, 0);
}
