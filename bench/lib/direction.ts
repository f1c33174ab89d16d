import type { Metric } from './scenario.js';

export type Better = NonNullable<Metric['better']>;

/**
 * Which way is better for each unit the scenarios use. Explicit on purpose: an unknown unit throws
 * instead of being guessed, so a new metric is never ranked the wrong way round without anyone
 * noticing. `%` is left out because it points both ways (a hit rate up, a utilisation down); a metric
 * in % sets `better` itself.
 */
const betterByUnit: Readonly<Record<string, Better>> = {
  'req/s': 'higher',
  'orders/s': 'higher',
  'deliveries/s': 'higher',
  '/s': 'higher',
  s: 'lower',
  ms: 'lower',
  µs: 'lower', // U+00B5 MICRO SIGN, as typed in the scenarios
  μs: 'lower', // U+03BC GREEK SMALL LETTER MU, the same unit typed another way
  MB: 'lower',
  GB: 'lower',
};

/** The metric's own `better`, else the one its unit implies; throws for a unit nobody has classified. */
export function betterDirection(m: Metric, scenario?: string): Better {
  if (m.better) return m.better;
  if (Object.hasOwn(betterByUnit, m.unit)) return betterByUnit[m.unit] as Better;
  const where = scenario ? `${scenario} · ${m.name}` : m.name;
  throw new Error(
    `bench metric "${where}" has unit "${m.unit}", which has no known direction: set ` +
      `\`better: 'higher' | 'lower'\` on the metric, or add the unit to betterByUnit in bench/lib/direction.ts`,
  );
}

/**
 * How many times better than its baseline a figure is, whichever way is better: above 1 when ours wins
 * (more req/s, or fewer ms), below 1 when the baseline wins. Undefined without a baseline, and for zero
 * or negative figures, where a ratio says nothing.
 */
export function speedVsBaseline(m: Metric, scenario?: string): number | undefined {
  const better = betterDirection(m, scenario);
  if (m.baseline === undefined || m.ours <= 0 || m.baseline <= 0) return undefined;
  return better === 'higher' ? m.ours / m.baseline : m.baseline / m.ours;
}
