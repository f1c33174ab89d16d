import fs from 'node:fs';
import { formatNumber } from './format.js';
import type { ScenarioResult } from './scenario.js';

/** What a run writes to latest.json; the report is rendered from it alone. */
export interface ResultsDocument {
  /** ISO 8601 in UTC; its date names the report. */
  startedAt: string;
  finishedAt: string;
  commit?: string;
  machine: {
    node: string;
    platform: string;
    cpus: number;
    cpuModel?: string;
    memoryMb: number;
  };
  /** The BENCH_* variables as the run saw them ("(default)" when unset). */
  settings: Record<string, string>;
  scenarios: ScenarioResult[];
  /**
   * A run of named scenarios only (`npm run bench -- name…`); false for a full run; absent in documents
   * written before it was recorded.
   */
  partial?: boolean;
  /** One "name: error" per scenario that threw. */
  failures: string[];
}

/** The run's start date in UTC, YYYY-MM-DD. */
export function runDate(document: ResultsDocument): string {
  const started = new Date(document.startedAt);
  if (Number.isNaN(started.getTime())) throw new Error(`startedAt "${document.startedAt}" is not a date`);
  return started.toISOString().slice(0, 10);
}

/** "AMD EPYC, 2 CPUs, 23.5 GB memory, Node v20.20.2, linux-x64" */
export function describeMachine(machine: ResultsDocument['machine']): string {
  return [
    machine.cpuModel ?? 'unknown CPU',
    `${machine.cpus} CPUs`,
    `${formatNumber(machine.memoryMb / 1024)} GB memory`,
    `Node ${machine.node}`,
    machine.platform,
  ].join(', ');
}

const databasePrefix = 'database: ';

/** The scenario's `database: …` note without its prefix, when it wrote one. */
export function databaseOf(scenario: ScenarioResult): string | undefined {
  return scenario.notes.find((note) => note.startsWith(databasePrefix))?.slice(databasePrefix.length);
}

/** Reads a latest.json, checking only what the report cannot do without. */
export function readResultsDocument(file: string): ResultsDocument {
  const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<ResultsDocument>;
  if (typeof parsed.startedAt !== 'string' || !Array.isArray(parsed.scenarios) || !parsed.machine) {
    throw new Error(`${file} is not a bench results document (no startedAt, machine or scenarios)`);
  }
  // Documents from before settings and failures were recorded lack them.
  return { settings: {}, failures: [], finishedAt: parsed.startedAt, ...parsed } as ResultsDocument;
}
