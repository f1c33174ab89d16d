/**
 * `npm run bench [-- name…]`: runs every scenario of bench/scenarios/ (in file-name order, or only the
 * ones named), prints one table of figures next to the baselines measured in the same run, and writes
 * bench/results/latest.json.
 *
 * Settings (environment): BENCH_DATABASE_URL, else TEST_DATABASE_URL, else DATABASE_URL, else an
 * embedded cluster in a temporary directory; BENCH_WARMUP (s, default 3), BENCH_DURATION (s, default
 * 10), BENCH_CONNECTIONS (default 10), BENCH_ROUNDS (default 1; more rounds alternate the order of
 * ours and the baseline and report medians).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { formatBaselines, formatTable } from './lib/format.js';
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

function writeResults(results: ScenarioResult[], startedAt: Date, failures: string[]) {
  fs.mkdirSync(resultsDir, { recursive: true });
  const document = {
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    commit: gitCommit(),
    machine: {
      node: process.version,
      platform: `${os.platform()}-${os.arch()}`,
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model,
      memoryMb: Math.round(os.totalmem() / 1024 / 1024),
    },
    settings: Object.fromEntries(
      ['BENCH_WARMUP', 'BENCH_DURATION', 'BENCH_CONNECTIONS', 'BENCH_ROUNDS'].map((name) => [
        name,
        process.env[name] ?? '(default)',
      ]),
    ),
    scenarios: results,
    failures,
  };
  const file = path.join(resultsDir, 'latest.json');
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(document, null, 2)}\n`);
  fs.renameSync(tmp, file);
  return file;
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
  const file = writeResults(results, startedAt, failures);
  console.log(`\nResults written to ${path.relative(process.cwd(), file)}`);
  if (failures.length) {
    console.error(
      `\n${failures.length} scenario(s) failed: ${failures.map((f) => f.split(':')[0]).join(', ')}`,
    );
    process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exitCode = 1;
});
