/**
 * `npm run bench:report -- <results.json> [outDir]`: renders report-YYYY-MM-DD.md and .png from a results
 * document a run already wrote (bench/results/latest.json), without running any benchmark. outDir
 * defaults to the folder of the JSON file.
 */
import path from 'node:path';
import { writeReport } from './lib/report-files.js';
import { readResultsDocument } from './lib/results-document.js';

async function main() {
  const [input, outDir] = process.argv.slice(2).filter((a) => a !== '--');
  if (!input) throw new Error('usage: npm run bench:report -- <results.json> [outDir]');
  const document = readResultsDocument(input);
  const files = await writeReport(document, outDir ?? path.dirname(input));
  console.log(`Report written to ${path.relative(process.cwd(), files.markdown)}`);
  console.log(`Chart written to ${path.relative(process.cwd(), files.chart)}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
});
