import { useId } from 'react';
import { niceTicks, xLabels } from './chart-scale';

export interface Point {
  label: string;
  /** Full label for the tooltip and the table. */
  title: string;
  value: number;
}

const WIDTH = 520;
const HEIGHT = 240;
const PAD = { top: 12, right: 14, bottom: 28, left: 58 };

interface ChartProps {
  points: Point[];
  format: (value: number) => string;
  label: string;
}

function Axes({
  ticks,
  top,
  format,
  plotWidth,
  plotHeight,
}: {
  ticks: number[];
  top: number;
  format: (v: number) => string;
  plotWidth: number;
  plotHeight: number;
}) {
  return (
    <g className="chart-axis">
      {ticks.map((t) => {
        const y = PAD.top + plotHeight - (t / top) * plotHeight;
        return (
          <g key={t}>
            <line x1={PAD.left} x2={PAD.left + plotWidth} y1={y} y2={y} className="chart-grid" />
            <text x={PAD.left - 8} y={y} dy="0.32em" textAnchor="end">
              {format(t)}
            </text>
          </g>
        );
      })}
    </g>
  );
}

/** An area chart (revenue over time). */
export function AreaChart({ points, format, label }: ChartProps) {
  const gradient = useId();
  const plotWidth = WIDTH - PAD.left - PAD.right;
  const plotHeight = HEIGHT - PAD.top - PAD.bottom;
  const ticks = niceTicks(Math.max(0, ...points.map((p) => p.value)));
  const top = ticks[ticks.length - 1] || 1;
  const x = (i: number) =>
    PAD.left + (points.length <= 1 ? plotWidth / 2 : (i / (points.length - 1)) * plotWidth);
  const y = (v: number) => PAD.top + plotHeight - (v / top) * plotHeight;
  const line = points
    .map((p, i) => `${i === 0 ? 'M' : 'L'}${x(i).toFixed(1)},${y(p.value).toFixed(1)}`)
    .join(' ');
  const area = points.length
    ? `${line} L${x(points.length - 1).toFixed(1)},${y(0)} L${x(0).toFixed(1)},${y(0)} Z`
    : '';
  return (
    <figure className="chart">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={label}>
        <defs>
          <linearGradient id={gradient} x1="0" x2="0" y1="0" y2="1">
            <stop offset="0%" stopColor="var(--chart-1)" stopOpacity="0.35" />
            <stop offset="100%" stopColor="var(--chart-1)" stopOpacity="0.02" />
          </linearGradient>
        </defs>
        <Axes ticks={ticks} top={top} format={format} plotWidth={plotWidth} plotHeight={plotHeight} />
        <path d={area} fill={`url(#${gradient})`} />
        <path d={line} className="chart-line" fill="none" />
        {points.map((p, i) => (
          <circle
            key={p.title}
            cx={x(i)}
            cy={y(p.value)}
            r={points.length > 40 ? 1.5 : 3}
            className="chart-dot"
          >
            <title>{`${p.title}: ${format(p.value)}`}</title>
          </circle>
        ))}
        {xLabels(points).map((i) => (
          <text key={i} x={x(i)} y={HEIGHT - 8} textAnchor="middle" className="chart-axis">
            {points[i]?.label}
          </text>
        ))}
      </svg>
    </figure>
  );
}

/** A bar chart (orders per period). */
export function BarChart({ points, format, label }: ChartProps) {
  const plotWidth = WIDTH - PAD.left - PAD.right;
  const plotHeight = HEIGHT - PAD.top - PAD.bottom;
  const ticks = niceTicks(Math.max(0, ...points.map((p) => p.value)));
  const top = ticks[ticks.length - 1] || 1;
  const slot = plotWidth / Math.max(1, points.length);
  const barWidth = Math.max(1, slot * 0.7);
  return (
    <figure className="chart">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={label}>
        <Axes ticks={ticks} top={top} format={format} plotWidth={plotWidth} plotHeight={plotHeight} />
        {points.map((p, i) => {
          const h = (p.value / top) * plotHeight;
          return (
            <rect
              key={p.title}
              x={PAD.left + i * slot + (slot - barWidth) / 2}
              y={PAD.top + plotHeight - h}
              width={barWidth}
              height={Math.max(0, h)}
              className="chart-bar"
              rx={Math.min(3, barWidth / 3)}
            >
              <title>{`${p.title}: ${format(p.value)}`}</title>
            </rect>
          );
        })}
        {xLabels(points).map((i) => (
          <text
            key={i}
            x={PAD.left + i * slot + slot / 2}
            y={HEIGHT - 8}
            textAnchor="middle"
            className="chart-axis"
          >
            {points[i]?.label}
          </text>
        ))}
      </svg>
    </figure>
  );
}
