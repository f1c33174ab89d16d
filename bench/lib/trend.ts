/** Least-squares line y = intercept + slope·x through the points (at least two distinct x). */
export function leastSquares(points: Array<{ x: number; y: number }>): { slope: number; intercept: number } {
  const n = points.length;
  if (n < 2) throw new Error(`a line needs at least 2 points, got ${n}`);
  const meanX = points.reduce((s, p) => s + p.x, 0) / n;
  const meanY = points.reduce((s, p) => s + p.y, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (const p of points) {
    sxy += (p.x - meanX) * (p.y - meanY);
    sxx += (p.x - meanX) ** 2;
  }
  if (sxx === 0) throw new Error('a line needs at least 2 distinct x');
  const slope = sxy / sxx;
  return { slope, intercept: meanY - slope * meanX };
}
