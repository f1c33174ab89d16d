import type { Metric, ScenarioResult, Target } from './scenario.js';

/** Figures with a precision that suits their size: 12 345, 123.4, 1.23. */
export function formatNumber(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const abs = Math.abs(n);
  const digits = abs >= 1000 ? 0 : abs >= 100 ? 1 : 2;
  return n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export function formatTarget(target: Target | undefined, unit: string): string {
  if (!target) return '';
  const op = target.op === '>=' ? '≥' : target.op === '<=' ? '≤' : '<';
  return target.on === 'ratio'
    ? `ratio ${op} ${target.value}`
    : `${op} ${formatNumber(target.value)} ${unit}`;
}

function row(scenario: string, m: Metric): string[] {
  return [
    scenario,
    `${m.name} (${m.unit})`,
    formatNumber(m.ours),
    m.baseline === undefined ? '' : formatNumber(m.baseline),
    m.ratio === undefined ? '' : `${m.ratio.toFixed(2)}×`,
    formatTarget(m.target, m.unit),
    m.met === undefined ? '' : m.met ? 'yes' : 'NO',
  ];
}

/** A plain-text table: one line per metric, numbers right-aligned. */
export function formatTable(results: ScenarioResult[]): string {
  const header = ['scenario', 'metric', 'ours', 'baseline', 'ratio', 'target', 'met'];
  const rows = results.flatMap((r) => r.metrics.map((m, i) => row(i === 0 ? r.name : '', m)));
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => (r[c] ?? '').length)));
  const numeric = new Set([2, 3, 4]);
  const line = (cells: string[]) =>
    cells
      .map((cell, c) => (numeric.has(c) ? cell.padStart(widths[c] ?? 0) : cell.padEnd(widths[c] ?? 0)))
      .join('  ')
      .trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(header), rule, ...rows.map(line)].join('\n');
}

/** What each scenario's baseline is, named once under the table. */
export function formatBaselines(results: ScenarioResult[]): string {
  return results
    .map((r) => [r.name, [...new Set(r.metrics.map((m) => m.baselineLabel).filter(Boolean))].join('; ')])
    .filter(([, labels]) => labels)
    .map(([name, labels]) => `  ${name}: ${labels}`)
    .join('\n');
}

export const mb = (kb: number) => kb / 1024;
