import { formatNumber, formatTarget } from './format.js';
import { formatTimes, type ReportRow, reportRows, slowestFirst } from './report-rows.js';
import { databaseOf, describeMachine, type ResultsDocument, runDate } from './results-document.js';

/** How many metrics the "slowest relative to its baseline" section names. */
const SLOWEST_SHOWN = 5;

const arrow = { higher: '↑', lower: '↓' } as const;

/** Text safe inside a table cell: a pipe would end the cell, a < before a letter could open an HTML tag. */
function cell(text: string): string {
  return text
    .replace(/\|/g, '\\|')
    .replace(/<(?=[A-Za-z/!?])/g, '&lt;')
    .replace(/\r?\n/g, ' ');
}

function tableRow(row: ReportRow): string {
  const m = row.metric;
  const cells = [
    row.scenario,
    `${m.name} (${m.unit} ${arrow[row.better]})`,
    formatNumber(m.ours),
    m.baseline === undefined ? '' : formatNumber(m.baseline),
    m.ratio === undefined ? '' : formatTimes(m.ratio),
    row.speed === undefined ? '' : formatTimes(row.speed),
    formatTarget(m.target, m.unit),
    m.met === undefined ? '' : m.met ? 'yes' : '**NO**',
  ];
  return `| ${cells.map(cell).join(' | ')} |`;
}

function resultsTable(rows: ReportRow[]): string[] {
  return [
    '| scenario | metric (unit) | ours | baseline | ours / baseline | speed vs baseline | target | met |',
    '|---|---|--:|--:|--:|--:|---|---|',
    ...rows.map(tableRow),
    '',
    '↑ higher is better, ↓ lower is better. *Speed vs baseline* is how many times better than its baseline ' +
      'ours is, whichever way is better: above 1× ours wins, below 1× the baseline wins. ' +
      '*ours / baseline* is the plain quotient, the one a target "ratio …" is checked against.',
  ];
}

function header(document: ResultsDocument): string[] {
  const settings = Object.entries(document.settings);
  const lines = [
    `# Emporium benchmarks — ${runDate(document)}`,
    '',
    document.partial === true
      ? '*Partial run: only the scenarios named, not every benchmark.*'
      : document.partial === false
        ? 'Every benchmark of `npm run bench`, each next to the baseline measured in the same run.'
        : 'Each benchmark next to the baseline measured in the same run.',
    '',
    `- **Run:** ${document.startedAt} → ${document.finishedAt} (UTC)`,
    `- **Machine:** ${describeMachine(document.machine)}`,
    `- **Commit:** ${document.commit ?? 'unknown'}`,
    `- **Settings:** ${settings.length ? settings.map(([k, v]) => `${k}=${v}`).join(', ') : 'not recorded'}`,
    '- **Database:**',
    ...document.scenarios.map((s) => `  - ${s.name}: ${databaseOf(s) ?? 'none named in its notes'}`),
  ];
  return lines;
}

function baselines(document: ResultsDocument): string[] {
  const lines = document.scenarios.flatMap((s) => {
    const labels = [...new Set(s.metrics.map((m) => m.baselineLabel).filter(Boolean))];
    return labels.length ? [`- **${s.name}**: ${labels.join('; ')}`] : [];
  });
  return lines.length ? ['### Baselines', '', ...lines] : [];
}

function slowest(rows: ReportRow[]): string[] {
  const ranked = slowestFirst(rows).slice(0, SLOWEST_SHOWN);
  if (!ranked.length) return [];
  return [
    '## Slowest relative to its baseline',
    '',
    ...ranked.map((r, i) => {
      const m = r.metric;
      const figures = `${formatNumber(m.ours)} vs ${formatNumber(m.baseline ?? Number.NaN)} ${m.unit}`;
      return `${i + 1}. **${r.scenario} · ${m.name}**: ${formatTimes(r.speed)} (${figures}, ${r.better} is better)`;
    }),
  ];
}

function failures(document: ResultsDocument): string[] {
  if (!document.failures.length) return [];
  return ['## Failed scenarios', '', ...document.failures.map((f) => `- ${cell(f.split('\n')[0] ?? f)}`)];
}

/** A fence longer than any run of backticks in the text, so a note can never close it early. */
function fenceFor(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  return '`'.repeat(Math.max(3, longest + 1));
}

function notes(document: ResultsDocument): string[] {
  if (!document.scenarios.length) return [];
  return [
    '## Notes per scenario',
    '',
    ...document.scenarios.flatMap((s) => {
      const text = s.notes.join('\n');
      const fence = fenceFor(text);
      return [
        `<details><summary><b>${s.name}</b> — ${cell(s.description)} (${formatNumber(s.durationMs / 1000)} s)</summary>`,
        '',
        `${fence}text`,
        text,
        fence,
        '',
        '</details>',
        '',
      ];
    }),
  ];
}

export interface MarkdownOptions {
  /** File name of the chart, relative to the Markdown file; no image line without it. */
  chartFile?: string;
}

/** The whole report as Markdown. Throws on a metric whose unit has no known direction. */
export function renderMarkdown(document: ResultsDocument, options: MarkdownOptions = {}): string {
  const rows = reportRows(document);
  const sections = [
    header(document),
    options.chartFile ? [`![Speed vs baseline per metric](${options.chartFile})`] : [],
    ['## Results', '', ...resultsTable(rows)],
    baselines(document),
    slowest(rows),
    failures(document),
    notes(document),
  ];
  return `${sections
    .filter((lines) => lines.length)
    .map((lines) => lines.join('\n'))
    .join('\n\n')
    .trimEnd()}\n`;
}
