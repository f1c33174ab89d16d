import sharp from 'sharp';
import { formatNumber, formatTarget } from './format.js';
import { formatTimes, type ReportRow, reportRows } from './report-rows.js';
import { describeMachine, type ResultsDocument, runDate } from './results-document.js';

/** Width of the chart in pixels (SVG units render 1:1). */
export const CHART_WIDTH = 1280;

const font = 'DejaVu Sans, sans-serif';
const colour = {
  met: '#2e7d32',
  notMet: '#c62828',
  noTarget: '#78909c',
  text: '#212121',
  muted: '#616161',
  grid: '#e3e3e3',
  baseline: '#212121',
};

/** Columns left to right: labels, the plot (with room at both ends for the figure at a bar's tip), figures. */
const x = {
  labelsEnd: 460,
  plotStart: 476,
  plotEnd: 1000,
  tipRoom: 52,
  figuresStart: 1016,
};
const rowHeight = 26;
const barHeight = 14;
const firstRowTop = 120;
/** Labels longer than this many characters are cut, so they stay inside their column at 13 px. */
const labelChars = 60;

/**
 * How far each side of the log axis reaches, in times the baseline, with its ticks on that side. Each
 * side takes the smallest span holding its bars (the last one caps), so that a plot where ours is
 * behind everywhere spends its width on the slow side; but at least the square root of the other
 * side's reach, so that neither side shrinks below about a third of the plot.
 */
const axisSpans: Array<{ span: number; ticks: number[] }> = [
  { span: 2, ticks: [1.5, 2] },
  { span: 5, ticks: [2, 5] },
  { span: 10, ticks: [2, 5, 10] },
  { span: 100, ticks: [10, 100] },
  { span: 1000, ticks: [10, 100, 1000] },
];

function spanHolding(widest: number) {
  return axisSpans.find((a) => a.span >= widest) ?? (axisSpans.at(-1) as (typeof axisSpans)[number]);
}

/** Maps a speed to an x on the log axis, clamped to the plot; `clipped` when the bar runs off it. */
function logAxis(speeds: number[]) {
  const needBehind = Math.max(1, ...speeds.map((s) => 1 / s));
  const needAhead = Math.max(1, ...speeds);
  const behind = spanHolding(Math.max(needBehind, Math.sqrt(spanHolding(needAhead).span)));
  const ahead = spanHolding(Math.max(needAhead, Math.sqrt(spanHolding(needBehind).span)));
  const left = x.plotStart + x.tipRoom;
  const right = x.plotEnd - x.tipRoom;
  const decadesBehind = Math.log10(behind.span);
  const decadesAhead = Math.log10(ahead.span);
  const pxPerDecade = (right - left) / (decadesBehind + decadesAhead);
  const centre = left + decadesBehind * pxPerDecade;
  const position = (speed: number) => {
    const decades = Math.log10(speed);
    const shown = Math.max(-decadesBehind, Math.min(decadesAhead, decades));
    return { x: centre + shown * pxPerDecade, clipped: shown !== decades };
  };
  const ticks = [...behind.ticks.map((t) => 1 / t).reverse(), 1, ...ahead.ticks];
  return { ticks, centre, left, right, position };
}

/** A tick as "0.01×", "0.67×", "1×", "100×". */
function tickLabel(tick: number): string {
  return `${Number(tick.toPrecision(2))}×`;
}

function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function text(at: { x: number; y: number }, content: string, style = ''): string {
  return `<text x="${at.x}" y="${at.y}" ${style}>${escapeXml(content)}</text>`;
}

function barColour(row: ReportRow): string {
  return row.metric.met === undefined ? colour.noTarget : row.metric.met ? colour.met : colour.notMet;
}

function bar(row: ReportRow & { speed: number }, top: number, axis: ReturnType<typeof logAxis>): string {
  const end = axis.position(row.speed);
  const ahead = row.speed >= 1;
  const from = Math.min(axis.centre, end.x);
  const width = Math.max(2, Math.abs(end.x - axis.centre));
  const barTop = top + (rowHeight - barHeight) / 2;
  const middle = top + rowHeight / 2 + 4;
  const fill = barColour(row);
  // Room between the bar's tip (or its notch, when clipped) and the figure written there.
  const gap = end.clipped ? 11 : 5;
  const parts = [
    `<rect x="${from.toFixed(1)}" y="${barTop}" width="${width.toFixed(1)}" height="${barHeight}" fill="${fill}"/>`,
    text(
      { x: Math.round(end.x + (ahead ? gap : -gap)), y: middle },
      formatTimes(row.speed),
      `font-size="11" fill="${colour.text}" text-anchor="${ahead ? 'start' : 'end'}"`,
    ),
  ];
  if (end.clipped) {
    // A notch at the clipped end says the bar goes on beyond the axis.
    const tip = ahead ? end.x + 6 : end.x - 6;
    parts.push(
      `<polygon points="${end.x},${barTop} ${tip},${barTop + barHeight / 2} ${end.x},${barTop + barHeight}" fill="${fill}"/>`,
    );
  }
  return parts.join('');
}

function figures(row: ReportRow): string {
  const m = row.metric;
  const baseline = m.baseline ?? Number.NaN;
  const ratio = m.ratio ?? m.ours / baseline;
  return `${formatNumber(m.ours)} vs ${formatNumber(baseline)} ${m.unit} (${formatTimes(ratio)})`;
}

function legend(y: number): string {
  const entries: Array<[string, string]> = [
    [colour.met, 'target met'],
    [colour.notMet, 'target not met'],
    [colour.noTarget, 'no target'],
  ];
  let at = 24;
  return entries
    .map(([fill, label]) => {
      const item =
        `<rect x="${at}" y="${y - 10}" width="12" height="12" fill="${fill}"/>` +
        text({ x: at + 18, y }, label, `font-size="12" fill="${colour.text}"`);
      at += 40 + label.length * 7;
      return item;
    })
    .join('');
}

/** The chart as an SVG document: one bar per metric with a baseline, metrics without one listed under it. */
export function renderChartSvg(document: ResultsDocument): string {
  const rows = reportRows(document);
  const charted = rows.filter((r): r is ReportRow & { speed: number } => r.speed !== undefined);
  const unbased = rows.filter((r) => r.speed === undefined);
  const axis = logAxis(charted.map((r) => r.speed));
  const plotBottom = firstRowTop + Math.max(1, charted.length) * rowHeight;
  const parts: string[] = [];

  const title = `Emporium benchmarks — ${runDate(document)}${document.partial ? ' (partial run)' : ''}`;
  parts.push(text({ x: 24, y: 36 }, title, `font-size="20" font-weight="bold" fill="${colour.text}"`));
  const machine = `${describeMachine(document.machine)} · commit ${document.commit ?? 'unknown'}`;
  parts.push(text({ x: 24, y: 60 }, machine, `font-size="13" fill="${colour.muted}"`));
  parts.push(legend(86));

  const header = `font-size="11" fill="${colour.muted}"`;
  parts.push(
    text({ x: x.labelsEnd, y: firstRowTop - 8 }, 'scenario · metric', `${header} text-anchor="end"`),
  );
  const plotMiddle = (x.plotStart + x.plotEnd) / 2;
  parts.push(
    text(
      { x: plotMiddle, y: firstRowTop - 8 },
      'speed vs baseline (log scale)',
      `${header} text-anchor="middle"`,
    ),
  );
  parts.push(text({ x: x.figuresStart, y: firstRowTop - 8 }, 'ours vs baseline (ratio)', header));

  for (const tick of axis.ticks) {
    const at = axis.position(tick).x.toFixed(1);
    const isBaseline = tick === 1;
    parts.push(
      `<line x1="${at}" y1="${firstRowTop - 2}" x2="${at}" y2="${plotBottom + 4}" ` +
        `stroke="${isBaseline ? colour.baseline : colour.grid}" stroke-width="${isBaseline ? 2 : 1}"/>`,
      text({ x: Number(at), y: plotBottom + 20 }, tickLabel(tick), `${header} text-anchor="middle"`),
    );
  }
  const caption = `font-size="12" fill="${colour.muted}"`;
  parts.push(
    text({ x: axis.centre - 8, y: plotBottom + 40 }, '← baseline better', `${caption} text-anchor="end"`),
    text({ x: axis.centre + 8, y: plotBottom + 40 }, 'ours better →', caption),
  );

  if (!charted.length) {
    const empty = 'no metric with a baseline';
    parts.push(text({ x: plotMiddle, y: firstRowTop + 17 }, empty, `${caption} text-anchor="middle"`));
  }
  charted.forEach((row, i) => {
    const top = firstRowTop + i * rowHeight;
    const middle = top + rowHeight / 2 + 4;
    if (i > 0 && charted[i - 1]?.scenario !== row.scenario) {
      parts.push(`<line x1="24" y1="${top}" x2="${CHART_WIDTH - 24}" y2="${top}" stroke="${colour.grid}"/>`);
    }
    const label = cut(`${row.scenario} · ${row.metric.name}`, labelChars);
    parts.push(
      text({ x: x.labelsEnd, y: middle }, label, `font-size="13" fill="${colour.text}" text-anchor="end"`),
    );
    parts.push(bar(row, top, axis));
    parts.push(text({ x: x.figuresStart, y: middle }, figures(row), `font-size="12" fill="${colour.text}"`));
  });

  let y = plotBottom + 72;
  if (unbased.length) {
    parts.push(
      text({ x: 24, y }, 'Without a baseline:', `font-size="13" font-weight="bold" fill="${colour.text}"`),
    );
    for (const row of unbased) {
      y += 19;
      const m = row.metric;
      const target = m.target
        ? ` — target ${formatTarget(m.target, m.unit)}: ${m.met ? 'met' : 'NOT met'}`
        : '';
      const line = `${row.scenario} · ${m.name}: ${formatNumber(m.ours)} ${m.unit}${target}`;
      parts.push(
        `<rect x="24" y="${y - 10}" width="10" height="10" fill="${barColour(row)}"/>`,
        text({ x: 42, y }, cut(line, 160), `font-size="12" fill="${colour.text}"`),
      );
    }
    y += 12;
  }
  if (document.failures.length) {
    y += 20;
    const names = document.failures.map((f) => f.split(':')[0]).join(', ');
    parts.push(text({ x: 24, y }, `Failed (no figures): ${names}`, `font-size="13" fill="${colour.notMet}"`));
  }
  const height = y + 24;

  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${CHART_WIDTH}" height="${height}" viewBox="0 0 ${CHART_WIDTH} ${height}" font-family="${font}">`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    ...parts,
    '</svg>',
  ].join('\n');
}

/** The chart as PNG bytes. */
export async function renderChartPng(document: ResultsDocument): Promise<Buffer> {
  return sharp(Buffer.from(renderChartSvg(document)))
    .png()
    .toBuffer();
}
