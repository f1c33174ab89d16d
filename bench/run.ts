/**
 * `npm run bench [-- name…]`: runs every scenario of bench/scenarios/ (in file-name order, or only the
 * ones named), prints one table of figures next to the baselines measured in the same run, and writes
 * latest.json plus the report (report-YYYY-MM-DD.md and .png, the run's start date in UTC) to
 * bench/results/. A run of named scenarios writes the same files to bench/results/partial/ (ignored by
 * git), so that it never replaces the report of a full run. `npm run bench:report` re-renders a report
 * from a JSON file. The script runs with NODE_ENV=production, as deployments do (React's production build
 * renders the shop's pages about ten times faster), and with `npm start`'s Node flags and malloc
 * variables (withNpmStartSettings); the servers it spawns get their settings explicitly.
 *
 * Settings (environment): BENCH_DATABASE_URL, else TEST_DATABASE_URL, else DATABASE_URL, else an
 * embedded cluster in a temporary directory; BENCH_WARMUP (s, default 3), BENCH_DURATION (s, default
 * 10), BENCH_CONNECTIONS (default 10), BENCH_ROUNDS (default 1; more rounds alternate the order of
 * ours and the baseline and report medians).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { GLIBC_MALLOC, GLIBC_MALLOC_TEXT, NPM_START_NODE_FLAGS } from './lib/api-process.js';
import { formatBaselines, formatTable } from './lib/format.js';
import { writeReport } from './lib/report-files.js';
import type { ResultsDocument } from './lib/results-document.js';
import type { Scenario, ScenarioResult } from './lib/scenario.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const scenariosDir = path.join(here, 'scenarios');
const resultsDir = path.join(here, 'results');

async function loadScenarios(): Promise<Scenario[]> {
  const files = fs
    .readdirSync(scenariosDir)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
    .sort();
  const scenarios: Scenario[] = [];
  for (const file of files) {
    const module = (await import(pathToFileURL(path.join(scenariosDir, file)).href)) as {
      scenario?: Scenario;
    };
    if (!module.scenario) throw new Error(`bench/scenarios/${file} exports no \`scenario\``);
    scenarios.push(module.scenario);
  }
  return scenarios;
}

function gitCommit(): string | undefined {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: here, encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
}

/**
 * The shared BENCH_* settings (marked "(default)" when unset) and any scenario-specific BENCH_* variable
 * that is set, such as BENCH_IMAGES; connection strings are left out, as they may hold a password.
 */
function benchSettings(): Record<string, string> {
  const shared = ['BENCH_WARMUP', 'BENCH_DURATION', 'BENCH_CONNECTIONS', 'BENCH_ROUNDS'];
  const others = Object.keys(process.env)
    .filter((name) => name.startsWith('BENCH_') && !name.endsWith('_URL') && !shared.includes(name))
    .sort();
  return {
    ...Object.fromEntries([...shared, ...others].map((name) => [name, process.env[name] ?? '(default)'])),
    'this process (as npm start)': [
      GLIBC_MALLOC_TEXT,
      ...process.execArgv.filter((a) => NPM_START_NODE_FLAGS.includes(a)),
    ].join(' '),
  };
}

function writeResults(
  outDir: string,
  results: ScenarioResult[],
  startedAt: Date,
  failures: string[],
  partial: boolean,
) {
  fs.mkdirSync(outDir, { recursive: true });
  const document: ResultsDocument = {
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    commit: gitCommit(),
    machine: {
      node: process.version,
      platform: `${os.platform()}-${os.arch()}`,
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model.trim(),
      memoryMb: Math.round(os.totalmem() / 1024 / 1024),
    },
    settings: benchSettings(),
    scenarios: results,
    failures,
    partial,
  };
  const file = path.join(outDir, 'latest.json');
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(document, null, 2)}\n`);
  fs.renameSync(tmp, file);
  return { file, document };
}

async function main() {
  const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  const all = await loadScenarios();
  const unknown = wanted.filter((name) => !all.some((s) => s.name === name));
  if (unknown.length) {
    throw new Error(
      `unknown scenario(s) ${unknown.join(', ')}; available: ${all.map((s) => s.name).join(', ')}`,
    );
  }
  const selected = wanted.length ? all.filter((s) => wanted.includes(s.name)) : all;
  const startedAt = new Date();
  const results: ScenarioResult[] = [];
  const failures: string[] = [];
  console.log(`Emporium benchmarks on ${os.cpus().length} CPU(s), Node ${process.version}`);

  for (const scenario of selected) {
    console.log(`\n▶ ${scenario.name}: ${scenario.description}`);
    const started = performance.now();
    try {
      const outcome = await scenario.run((line) => console.log(`  ${line}`));
      results.push({
        name: scenario.name,
        description: scenario.description,
        ...outcome,
        durationMs: Math.round(performance.now() - started),
      });
    } catch (error) {
      const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
      failures.push(`${scenario.name}: ${message}`);
      console.error(`\n✗ ${scenario.name} failed:\n${message}`);
    }
  }

  if (results.length) {
    console.log(`\n${formatTable(results)}\n`);
    console.log(`Baselines (measured in this run):\n${formatBaselines(results)}`);
    for (const r of results) {
      console.log(`\n${r.name}:`);
      for (const note of r.notes) console.log(`  ${note}`);
    }
  }
  const partial = wanted.length > 0;
  const outDir = partial ? path.join(resultsDir, 'partial') : resultsDir;
  const { file, document } = writeResults(outDir, results, startedAt, failures, partial);
  const shown = (p: string) => path.relative(process.cwd(), p);
  console.log(`\nResults written to ${shown(file)}`);
  try {
    const report = await writeReport(document, outDir);
    console.log(`Chart written to ${shown(report.chart)}`);
    console.log(`Report written to ${shown(report.markdown)}`);
  } catch (error) {
    // The figures are safe in the JSON; the report can be rebuilt from it once the cause is fixed.
    console.error(
      `\nThe report could not be rendered: ${error instanceof Error ? error.message : String(error)}`,
    );
    console.error(`Fix it, then: npm run bench:report -- ${shown(file)}`);
    process.exitCode = 1;
  }
  if (failures.length) {
    console.error(
      `\n${failures.length} scenario(s) failed: ${failures.map((f) => f.split(':')[0]).join(', ')}`,
    );
    process.exitCode = 1;
  }
}

/**
 * The servers this process measures (the in-process app and the bare baselines beside it) run with
 * `npm start`'s settings, as a deployment runs: its Node flags (a 16 MB young generation) and glibc's
 * malloc variables. Started without them, the script runs itself again with them and passes on its
 * exit code. Both servers of a comparison share the process, so they share the settings too.
 */
function withNpmStartSettings(): boolean {
  const flags = NPM_START_NODE_FLAGS.filter((flag) => !process.execArgv.includes(flag));
  const malloc = Object.entries(GLIBC_MALLOC).filter(([name, value]) => process.env[name] !== value);
  if (flags.length === 0 && malloc.length === 0) return true;
  const child = spawnSync(process.execPath, [...flags, ...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, ...GLIBC_MALLOC },
  });
  process.exitCode = child.status ?? 1;
  return false;
}

if (withNpmStartSettings())
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exitCode = 1;
  });
