import type { MeasuredLoad } from './load.js';

/** A positive number from the environment, or the fallback when the variable is unset or empty. */
export function envNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got "${raw}"`);
  return n;
}

/** The median of a non-empty list (the mean of the two middle values for an even count). */
export function median(values: number[]): number {
  if (values.length === 0) throw new Error('median of an empty list');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export function mean(values: number[]): number {
  if (values.length === 0) throw new Error('mean of an empty list');
  return values.reduce((sum, v) => sum + v, 0) / values.length;
}

/** Per figure, the median over the rounds of autocannon runs (the value itself with one round). */
export function medianLoad(runs: MeasuredLoad[]): MeasuredLoad {
  const first = runs[0];
  if (!first) throw new Error('no runs to summarise');
  const of = (pick: (r: MeasuredLoad) => number) => median(runs.map(pick));
  return {
    ...first,
    requestsPerSec: of((r) => r.requestsPerSec),
    latencyP50Ms: of((r) => r.latencyP50Ms),
    latencyP99Ms: of((r) => r.latencyP99Ms),
    serverCpuUsPerRequest: of((r) => r.serverCpuUsPerRequest),
    databaseCpuUsPerRequest: of((r) => r.databaseCpuUsPerRequest),
    serverEventLoopUtilization: of((r) => r.serverEventLoopUtilization),
  };
}

/**
 * Round r runs ours first when r is even and the baseline first when odd, so that neither always
 * gets the warmer (or the quieter) half of the machine's time.
 */
export function roundOrder(round: number): readonly ['ours', 'baseline'] | readonly ['baseline', 'ours'] {
  return round % 2 === 0 ? (['ours', 'baseline'] as const) : (['baseline', 'ours'] as const);
}
