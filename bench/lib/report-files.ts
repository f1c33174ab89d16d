import fs from 'node:fs';
import path from 'node:path';
import { renderChartPng } from './report-chart.js';
import { renderMarkdown } from './report-markdown.js';
import { type ResultsDocument, runDate } from './results-document.js';

/** Writes report-YYYY-MM-DD.md and .png (the run's start date, UTC) into outDir; returns both paths. */
export async function writeReport(
  document: ResultsDocument,
  outDir: string,
): Promise<{ markdown: string; chart: string }> {
  const base = `report-${runDate(document)}`;
  const chartName = `${base}.png`;
  // Rendered before anything is written, so a metric with an unknown unit leaves no half-written report.
  const markdown = renderMarkdown(document, { chartFile: chartName });
  const png = await renderChartPng(document);
  fs.mkdirSync(outDir, { recursive: true });
  const files = { markdown: path.join(outDir, `${base}.md`), chart: path.join(outDir, chartName) };
  fs.writeFileSync(files.markdown, markdown);
  fs.writeFileSync(files.chart, png);
  return files;
}
