import { type Better, betterDirection, speedVsBaseline } from './direction.js';
import { formatNumber } from './format.js';
import type { ResultsDocument } from './results-document.js';
import type { Metric } from './scenario.js';

/** One metric of one scenario, with what the report derives from it. */
export interface ReportRow {
  scenario: string;
  metric: Metric;
  better: Better;
  /** Above 1 when ours beats the baseline; undefined without a baseline. */
  speed: number | undefined;
}

/** Every metric of every scenario, in run order. Throws on a unit with no known direction. */
export function reportRows(document: ResultsDocument): ReportRow[] {
  return document.scenarios.flatMap((s) =>
    s.metrics.map((metric) => ({
      scenario: s.name,
      metric,
      better: betterDirection(metric, s.name),
      speed: speedVsBaseline(metric, s.name),
    })),
  );
}

/** The rows that have a baseline, furthest behind it first. */
export function slowestFirst(rows: ReportRow[]): Array<ReportRow & { speed: number }> {
  return rows
    .filter((r): r is ReportRow & { speed: number } => r.speed !== undefined)
    .sort((a, b) => a.speed - b.speed);
}

/**
 * A speed or ratio as "0.45×", "0.013×", "77.43×": formatNumber from 1 up, two significant digits below,
 * so that a figure far behind its baseline does not print as 0.00×.
 */
export function formatTimes(x: number): string {
  return `${Math.abs(x) >= 1 || !Number.isFinite(x) ? formatNumber(x) : x.toPrecision(2)}×`;
}
