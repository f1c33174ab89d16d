import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The house rules of STYLE.md that a reader cannot see at a glance: a module is reached only through
 * its index.ts, platform/ never imports a module, and the import graph of src/ has no cycle.
 */
const SRC = path.resolve(import.meta.dirname, '../../src');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    // src/shop/client is browser code that Vite bundles: not part of the server.
    if (entry.isDirectory()) return full.endsWith(path.join('shop', 'client')) ? [] : sourceFiles(full);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

/** Relative imports of a file (type-only ones too: they couple modules as much), resolved to files. */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const specifiers = [
    ...text.matchAll(/^(?:import|export)\s[^;]*?\sfrom\s'(\.[^']+)'/gms),
    ...text.matchAll(/import\('(\.[^']+)'\)/g),
  ].map((match) => match[1] ?? '');
  return specifiers.map((s) => {
    const target = path.resolve(path.dirname(file), s.replace(/\.js$/, '.ts'));
    return fs.existsSync(target) || !fs.existsSync(`${target}x`) ? target : `${target}x`;
  });
}

const files = sourceFiles(SRC);
const graph = new Map(files.map((file) => [file, importsOf(file)]));
const rel = (file: string) => path.relative(SRC, file);
/** `modules/<name>` of a file, or undefined outside the modules. */
const moduleOf = (file: string) => /^modules\/([^/]+)\//.exec(rel(file))?.[1];

describe('module boundaries', () => {
  it('every relative import resolves to a file', () => {
    const missing = [...graph].flatMap(([file, targets]) =>
      targets.filter((t) => !fs.existsSync(t)).map((t) => `${rel(file)} → ${rel(t)}`),
    );
    expect(missing).toEqual([]);
  });

  it('modules reach each other (and the rest of src reaches them) only through their index.ts', () => {
    const deep = [...graph].flatMap(([file, targets]) =>
      targets
        .filter((target) => {
          const into = moduleOf(target);
          return into !== undefined && into !== moduleOf(file) && path.basename(target) !== 'index.ts';
        })
        .map((target) => `${rel(file)} → ${rel(target)}`),
    );
    expect(deep).toEqual([]);
  });

  it('platform/ imports nothing from modules/', () => {
    const wrong = [...graph].flatMap(([file, targets]) =>
      rel(file).startsWith('platform/')
        ? targets.filter((t) => moduleOf(t) !== undefined).map((t) => `${rel(file)} → ${rel(t)}`)
        : [],
    );
    expect(wrong).toEqual([]);
  });

  it('inside modules/, SQL is written only in repositories', () => {
    const query = /\.(selectFrom|updateTable|insertInto|deleteFrom|with)\(|\bsql`/;
    const outside = files
      .filter((file) => moduleOf(file) !== undefined && !file.endsWith('.repository.ts'))
      .filter((file) => query.test(fs.readFileSync(file, 'utf8')))
      .map(rel);
    expect(outside).toEqual([]);
  });

  it('the import graph has no cycle', () => {
    const state = new Map<string, 'open' | 'done'>();
    const cycles: string[] = [];
    const visit = (file: string, trail: string[]) => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        cycles.push([...trail.slice(trail.indexOf(file)), file].map(rel).join(' → '));
        return;
      }
      state.set(file, 'open');
      for (const next of graph.get(file) ?? []) if (graph.has(next)) visit(next, [...trail, file]);
      state.set(file, 'done');
    };
    for (const file of files) visit(file, []);
    expect(cycles).toEqual([]);
  });
});
