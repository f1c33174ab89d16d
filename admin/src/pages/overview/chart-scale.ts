/** Pure scale arithmetic of the overview's charts: value ticks and which x labels to show. */

/** 0, a round step, …: at most `count` ticks covering `max`. */
export function niceTicks(max: number, count = 4): number[] {
  if (max <= 0) return [0, 1];
  const rough = max / count;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => s >= rough) ?? rough;
  const ticks: number[] = [];
  for (let v = 0; v <= max + step * 0.999; v += step) ticks.push(Number(v.toPrecision(12)));
  return ticks;
}

/** The indexes of at most six points, first and last included, spread evenly, that get an x label. */
export function xLabels(points: readonly unknown[]): number[] {
  if (points.length <= 1) return points.map((_, i) => i);
  const wanted = Math.min(points.length, 6);
  const indexes = new Set<number>();
  for (let i = 0; i < wanted; i++) indexes.add(Math.round((i * (points.length - 1)) / (wanted - 1)));
  return [...indexes];
}
