import os from 'node:os';
import { type MeasuredLoad, warmUpAndMeasure } from './load.js';
import { medianLoad, roundOrder } from './rounds.js';
import { metric } from './scenario.js';

type Side = 'ours' | 'baseline';

/** One measured run as a note: requests, throughput, latency, server CPU and the load around it. */
export function describeRun(label: string, r: MeasuredLoad): string {
  return (
    `${label}: ${r.totalRequests} requests, ${r.requestsPerSec.toFixed(1)} req/s, ` +
    `p50 ${r.latencyP50Ms} ms, p99 ${r.latencyP99Ms} ms, max ${r.latencyMaxMs} ms, server CPU user ${r.serverCpuUserUsPerRequest.toFixed(0)} + ` +
    `system ${r.serverCpuSystemUsPerRequest.toFixed(0)} µs/request, load average before ${r.loadAverageBefore.toFixed(2)}`
  );
}

export interface PageRunOptions<K extends string> {
  /** The pages measured, by name (e.g. { first: 1, deep: 10_000 }). */
  pages: Record<K, number>;
  pathOf: (page: number) => string;
  urls: Record<Side, string>;
  headers: Record<Side, Record<string, string>>;
  connections: number;
  warmupSec: number;
  durationSec: number;
  rounds: number;
  /** A description of both servers' setting for the notes (pools, rate limit, logging). */
  setting: string;
  log: (line: string) => void;
}

/**
 * A merchant list measured at several pages, ours against the classic baseline, each page in
 * alternating rounds; answers the notes and the p99 and throughput metrics of every page.
 */
export async function measurePages<K extends string>(
  options: PageRunOptions<K>,
  metrics: { baselineLabel: string; p99TargetMs: number },
) {
  const { pages, connections, warmupSec, durationSec, rounds } = options;
  const entries = Object.entries(pages) as Array<[K, number]>;
  const runs = Object.fromEntries(
    entries.map(([which]) => [which, { ours: [] as MeasuredLoad[], baseline: [] as MeasuredLoad[] }]),
  ) as Record<K, Record<Side, MeasuredLoad[]>>;
  for (const [which, page] of entries) {
    for (let round = 0; round < rounds; round++) {
      for (const server of roundOrder(round)) {
        options.log(
          `page ${page} / ${server}${rounds > 1 ? ` (round ${round + 1}/${rounds})` : ''}: ${warmupSec} s warm-up + ${durationSec} s, ${connections} connections…`,
        );
        const result = await warmUpAndMeasure({
          url: options.urls[server] + options.pathOf(page),
          headers: options.headers[server],
          connections,
          warmupSec,
          durationSec,
          // A classic deep page takes seconds under load: a slow answer is a figure, not an error.
          timeoutSec: 60,
        });
        if (result.totalRequests === 0) {
          throw new Error(
            `page ${page} / ${server}: no request completed in ${durationSec} s; raise BENCH_DURATION`,
          );
        }
        runs[which][server].push(result);
      }
    }
  }
  const notes = [
    `load: autocannon in a child process, ${connections} connections, ${warmupSec} s warm-up then ${durationSec} s measured` +
      `${rounds > 1 ? `, ${rounds} alternating rounds (medians shown)` : ''}; ${options.setting}`,
    'the servers, PostgreSQL (if local) and autocannon share the same CPUs; both servers are measured under the same conditions',
    ...entries.flatMap(([which, page]) =>
      (['ours', 'baseline'] as const).flatMap((server) =>
        runs[which][server].map((r, i) =>
          describeRun(`page ${page} / ${server}${rounds > 1 ? ` round ${i + 1}` : ''}`, r),
        ),
      ),
    ),
    `(load average: the machine's 1-minute figure on ${os.cpus().length} CPUs; well above ~1 means other work was competing)`,
  ];
  return {
    notes,
    metrics: entries.flatMap(([which, page]) => {
      const ours = medianLoad(runs[which].ours);
      const bare = medianLoad(runs[which].baseline);
      return [
        metric({
          name: `page ${page}: latency p99`,
          unit: 'ms',
          ours: ours.latencyP99Ms,
          baseline: bare.latencyP99Ms,
          baselineLabel: metrics.baselineLabel,
          target: { on: 'value', op: '<', value: metrics.p99TargetMs },
        }),
        metric({
          name: `page ${page}: throughput`,
          unit: 'req/s',
          ours: ours.requestsPerSec,
          baseline: bare.requestsPerSec,
          baselineLabel: metrics.baselineLabel,
        }),
      ];
    }),
  };
}
