import v8 from 'node:v8';
import { describe, expect, it } from 'vitest';
import { type Mapping, mappingsOf, residentByKind, v8PagesMappedKb } from '../../bench/lib/proc.js';

const MB = 1024;
const at = (address: bigint) => address.toString(16);

describe('the soak’s reading of /proc/<pid>/smaps', () => {
  it('sorts resident memory by what backs it', () => {
    const mappings: Mapping[] = [
      { start: at(0x5000000n), sizeKb: 90 * MB, perms: 'rw-p', name: '[heap]', rssKb: 80 * MB },
      // glibc's second arena: a 64 MB-aligned heap.
      { start: at(0x7f0000000000n), sizeKb: 6 * MB, perms: 'rw-p', name: '', rssKb: 5 * MB },
      // V8's pages: 256 KB-aligned, whole pages (adjacent ones merge into one mapping).
      { start: at(0x3a0000040000n), sizeKb: 1024, perms: 'rw-p', name: '', rssKb: 700 },
      // V8's code range: a large reservation.
      { start: at(0x7e0000000000n + 0x40000n), sizeKb: 512 * MB, perms: 'rwxp', name: '', rssKb: 7 * MB },
      // A thread stack: not page-aligned for V8.
      { start: at(0x7e1000001000n), sizeKb: 8188, perms: 'rw-p', name: '', rssKb: 40 },
      { start: at(0x400000n), sizeKb: 3352, perms: 'r--p', name: '/usr/bin/node', rssKb: 3352 },
      { start: at(0x7ffd0000n), sizeKb: 132, perms: 'rw-p', name: '[stack]', rssKb: 60 },
    ];
    expect(residentByKind(mappings)).toEqual({
      'brk heap': 80 * MB,
      'anon 64 MB-aligned': 5 * MB,
      'anon ≥ 256 MB': 7 * MB,
      'anon 256 KB-aligned': 700,
      anon: 40,
      files: 3352,
      other: 60,
    });
    expect(v8PagesMappedKb(mappings)).toBe(1024);
  });

  it('finds this process’s V8 pages, at least its committed heap', () => {
    const mappings = mappingsOf(process.pid);
    expect(mappings.some((m) => m.name === '[heap]')).toBe(true);
    const committedKb = v8.getHeapStatistics().total_heap_size / 1024;
    // Code space lives in the code range (a reservation), so allow it out of the page count.
    const codeKb =
      (v8.getHeapSpaceStatistics().find((s) => s.space_name === 'code_space')?.space_size ?? 0) / 1024;
    expect(v8PagesMappedKb(mappings)).toBeGreaterThanOrEqual((committedKb - codeKb) * 0.9);
  });
});
