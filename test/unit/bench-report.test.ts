import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { betterDirection, speedVsBaseline } from '../../bench/lib/direction.js';
import { CHART_WIDTH, renderChartPng, renderChartSvg } from '../../bench/lib/report-chart.js';
import { renderMarkdown } from '../../bench/lib/report-markdown.js';
import { reportRows, slowestFirst } from '../../bench/lib/report-rows.js';
import type { ResultsDocument } from '../../bench/lib/results-document.js';
import { type Metric, metric } from '../../bench/lib/scenario.js';

/** A small run: one scenario ahead and behind in both directions, one metric without a baseline. */
function sampleDocument(): ResultsDocument {
  return {
    startedAt: '2026-03-04T23:59:00.000Z',
    finishedAt: '2026-03-05T00:10:00.000Z',
    commit: 'abc1234',
    machine: { node: 'v20.20.2', platform: 'linux-x64', cpus: 4, cpuModel: 'Test CPU', memoryMb: 8192 },
    settings: { BENCH_DURATION: '10' },
    partial: false,
    failures: ['webhooks: Error: receiver <refused>\n    at stack'],
    scenarios: [
      {
        name: 'orders-list',
        description: 'GET /api/v1/orders',
        durationMs: 12_000,
        notes: ['database: embedded (port 5432)', '  indented detail'],
        metrics: [
          metric({
            name: 'throughput',
            unit: 'req/s',
            ours: 500,
            baseline: 1000,
            baselineLabel: 'bare Fastify | pg',
            target: { on: 'ratio', op: '>=', value: 0.6 },
          }),
          metric({
            name: 'latency p99',
            unit: 'ms',
            ours: 20,
            baseline: 80,
            baselineLabel: 'bare Fastify | pg',
          }),
        ],
      },
      {
        name: 'startup',
        description: 'start-up & memory',
        durationMs: 3_000,
        notes: [],
        metrics: [
          metric({ name: 'idle RSS', unit: 'MB', ours: 300, baseline: 100, baselineLabel: 'bare node' }),
          metric({ name: 'seed', unit: 's', ours: 4, target: { on: 'value', op: '<', value: 5 } }),
          metric({ name: 'deliveries', unit: '/s', ours: 1500, baseline: 1000, baselineLabel: 'bare loop' }),
        ],
      },
    ],
  };
}

const sample = (overrides: Partial<Metric>): Metric => ({ name: 'm', unit: 'ms', ours: 1, ...overrides });

describe('direction of a metric', () => {
  it.each([
    ['req/s', 'higher'],
    ['orders/s', 'higher'],
    ['/s', 'higher'],
    ['ms', 'lower'],
    ['µs', 'lower'],
    ['MB', 'lower'],
  ])('infers %s as %s is better', (unit, better) => {
    expect(betterDirection(sample({ unit }))).toBe(better);
  });

  it('throws for a unit nobody has classified, naming the metric and the fix', () => {
    expect(() => betterDirection(sample({ unit: 'widgets' }), 'demo')).toThrow(/demo · m.*"widgets".*better/);
    expect(() => betterDirection(sample({ unit: '%' }))).toThrow(/"%"/);
  });

  it('prefers the direction the metric sets over its unit', () => {
    expect(betterDirection(sample({ unit: '%', better: 'lower' }))).toBe('lower');
    expect(betterDirection(sample({ unit: 'ms', better: 'higher' }))).toBe('higher');
  });
});

describe('speed vs baseline', () => {
  it('is ours / baseline when higher is better', () => {
    expect(speedVsBaseline(sample({ unit: 'req/s', ours: 500, baseline: 1000 }))).toBe(0.5);
    expect(speedVsBaseline(sample({ unit: 'req/s', ours: 3000, baseline: 1000 }))).toBe(3);
  });

  it('is baseline / ours when lower is better, so beating the baseline is still above 1', () => {
    expect(speedVsBaseline(sample({ unit: 'ms', ours: 20, baseline: 80 }))).toBe(4);
    expect(speedVsBaseline(sample({ unit: 'MB', ours: 300, baseline: 100 }))).toBeCloseTo(1 / 3);
  });

  it('is undefined without a usable baseline', () => {
    expect(speedVsBaseline(sample({ baseline: undefined }))).toBeUndefined();
    expect(speedVsBaseline(sample({ ours: 0, baseline: 10 }))).toBeUndefined();
  });
});

describe('the Markdown report', () => {
  const markdown = renderMarkdown(sampleDocument(), { chartFile: 'report-2026-03-04.png' });
  const tableLines = markdown.split('\n').filter((line) => line.startsWith('| '));

  it('is titled with the UTC date of the start and names machine, commit, settings and database', () => {
    expect(markdown).toMatch(/^# Emporium benchmarks — 2026-03-04\n/);
    expect(markdown).toContain('Test CPU, 4 CPUs, 8.00 GB memory, Node v20.20.2, linux-x64');
    expect(markdown).toContain('**Commit:** abc1234');
    expect(markdown).toContain('BENCH_DURATION=10');
    expect(markdown).toContain('  - orders-list: embedded (port 5432)');
    expect(markdown).toContain('![Speed vs baseline per metric](report-2026-03-04.png)');
  });

  it('has one table row per metric with its ratio and speed vs baseline', () => {
    expect(tableLines).toEqual([
      '| scenario | metric (unit) | ours | baseline | ours / baseline | speed vs baseline | target | met |',
      '| orders-list | throughput (req/s ↑) | 500.0 | 1,000 | 0.50× | 0.50× | ratio ≥ 0.6 | **NO** |',
      '| orders-list | latency p99 (ms ↓) | 20.00 | 80.00 | 0.25× | 4.00× |  |  |',
      '| startup | idle RSS (MB ↓) | 300.0 | 100.0 | 3.00× | 0.33× |  |  |',
      '| startup | seed (s ↓) | 4.00 |  |  |  | < 5.00 s | yes |',
      '| startup | deliveries (/s ↑) | 1,500 | 1,000 | 1.50× | 1.50× |  |  |',
    ]);
  });

  it("names each scenario's baselines once, under the table", () => {
    expect(markdown).toContain('- **orders-list**: bare Fastify | pg');
    expect(markdown).toContain('- **startup**: bare node; bare loop');
  });

  it('ranks the metrics furthest behind their baseline first', () => {
    const section = markdown.slice(markdown.indexOf('## Slowest relative to its baseline'));
    const ranked = section.split('\n').filter((line) => /^\d\. /.test(line));
    expect(ranked.map((line) => line.split(':')[0])).toEqual([
      '1. **startup · idle RSS**',
      '2. **orders-list · throughput**',
      '3. **startup · deliveries**',
      '4. **orders-list · latency p99**',
    ]);
    expect(slowestFirst(reportRows(sampleDocument())).map((r) => r.speed)).toEqual([1 / 3, 0.5, 1.5, 4]);
  });

  it('keeps notes verbatim in a collapsible block and lists failures', () => {
    expect(markdown).toContain('<details><summary><b>orders-list</b>');
    expect(markdown).toContain('```text\ndatabase: embedded (port 5432)\n  indented detail\n```');
    expect(markdown).toContain('- webhooks: Error: receiver &lt;refused>');
  });
});

describe('the chart', () => {
  it('escapes labels and draws a bar for each metric with a baseline only', () => {
    const svg = renderChartSvg(sampleDocument());
    expect(svg).toContain('startup · seed: 4.00 s — target &#60; 5.00 s: met');
    expect(svg.match(/<rect x="[\d.]+" y="[\d.]+" width="[\d.]+" height="14"/g)).toHaveLength(4);
  });

  it('renders to a PNG of the chart width', async () => {
    const info = await sharp(await renderChartPng(sampleDocument())).metadata();
    expect(info.format).toBe('png');
    expect(info.width).toBe(CHART_WIDTH);
  });
});
