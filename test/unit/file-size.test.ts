import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * STYLE.md: "Split a file that passes about 400 lines." Every TypeScript file of src/ (tests beside
 * the code excepted: a table of cases reads fine long) has at most 400 lines.
 *
 * Migrations are excepted: a migration that ran in a database is history and must keep sending
 * exactly the same SQL (test/unit/migrations-frozen.test.ts), so it is never reshaped to meet a
 * line count; a long one may move its SQL into a sibling module of constants when that provably
 * changes nothing (as 2026_11_23_0010_analytics.sql.ts does).
 */
const SRC = path.resolve(import.meta.dirname, '../../src');
const MAX_LINES = 400;
const MIGRATIONS = 'platform/db/migrations/';

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

const lineCounts = new Map(
  sourceFiles(SRC).map((file) => [
    path.relative(SRC, file).split(path.sep).join('/'),
    fs.readFileSync(file, 'utf8').replace(/\n$/, '').split('\n').length,
  ]),
);

describe('file size', () => {
  it(`no file in src/ passes ${MAX_LINES} lines (migrations excepted)`, () => {
    const long = [...lineCounts]
      .filter(([file, lines]) => lines > MAX_LINES && !file.startsWith(MIGRATIONS))
      .map(([file, lines]) => `${file}: ${lines} lines`);
    expect(long).toEqual([]);
  });
});
