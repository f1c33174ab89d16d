import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { builtinModules } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { GLIBC_MALLOC_TEXT, NPM_START_NODE_FLAGS } from '../../bench/lib/api-process.js';

/**
 * What a production install holds: `npm ci --omit=dev` (the Docker image) keeps only
 * `dependencies`, and `npm start` / `npm run emporium` run the compiled dist/ with plain Node.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  bin: Record<string, string>;
};
const run = promisify(execFile);

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    // src/shop/client is browser code that Vite bundles: not part of the server.
    if (entry.isDirectory()) return full.endsWith(path.join('shop', 'client')) ? [] : sourceFiles(full);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`. */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier);
}

describe('packaging', () => {
  it('every package the server imports at run time is a production dependency', () => {
    const missing = new Set<string>();
    for (const file of sourceFiles(path.join(ROOT, 'src'))) {
      const text = fs.readFileSync(file, 'utf8');
      // Static imports (type-only ones are erased by the compiler) and dynamic import('…').
      const specifiers = [
        ...text.matchAll(/^import (?!type )[^;]*? from '([^']+)'/gms),
        ...text.matchAll(/import\('([^']+)'\)/g),
      ].map((match) => match[1] ?? '');
      for (const specifier of specifiers) {
        if (specifier.startsWith('.') || specifier.startsWith('node:')) continue;
        if (builtinModules.includes(specifier)) continue;
        const name = packageOf(specifier);
        if (!pkg.dependencies[name]) missing.add(`${name} (${path.relative(ROOT, file)})`);
      }
    }
    expect([...missing]).toEqual([]);
  });

  it('build and development tools are not production dependencies', () => {
    for (const tool of ['tsx', 'typescript', 'vite', '@vitejs/plugin-react', 'vitest', '@biomejs/biome']) {
      expect(pkg.dependencies[tool], tool).toBeUndefined();
      expect(pkg.devDependencies[tool], tool).toBeDefined();
    }
  });

  it('npm start and npm run emporium run the compiled server with plain Node', () => {
    // glibc malloc: two arenas and a fixed mmap threshold, so what an image burst allocated is
    // returned; V8's young generation capped at 2 × 16 MB: RSS plateaus ~130 MB lower under load
    // (docs/decisions.md).
    const malloc = 'MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=131072';
    const flags = '--max-semi-space-size=16';
    expect(pkg.scripts.start).toBe(`${malloc} node ${flags} dist/main.js`);
    expect(pkg.scripts.emporium).toBe(`${malloc} node ${flags} bin/emporium.js`);
    const dockerfile = fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(new RegExp(`^ENV .*${malloc}`, 'm'));
    expect(dockerfile).toMatch(/^ENTRYPOINT \["node", "--max-semi-space-size=16", "dist\/cli.js"\]/m);
    // The benchmarks that claim to run `npm start` read its settings from its script.
    expect(NPM_START_NODE_FLAGS).toEqual([flags]);
    expect(GLIBC_MALLOC_TEXT).toBe(malloc);
    expect(pkg.bin.emporium).toBe('./bin/emporium.js');
    const launcher = fs.readFileSync(path.join(ROOT, 'bin/emporium.js'), 'utf8');
    expect(launcher).toContain("'../dist/cli.js'");
    expect(launcher).not.toMatch(/tsx/);
  });

  it('the compiled CLI (npm run emporium) prints the same OpenAPI document as the sources', async () => {
    const options = { cwd: ROOT, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, NODE_OPTIONS: '' } };
    const [compiled, sources] = await Promise.all([
      run(process.execPath, ['bin/emporium.js', 'openapi'], options),
      run(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'openapi'], options),
    ]);
    // A difference means dist/ is older than the sources: `npm run build` (npm ci does it).
    expect(JSON.parse(compiled.stdout)).toEqual(JSON.parse(sources.stdout));
  }, 30_000);

  it('npm start and the CLI keep the compiled code of their modules for the next start', async () => {
    // Node's own default place (no NODE_COMPILE_CACHE, which would switch the cache on by itself).
    const options = (tmp: string) => {
      const env: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: '', TMPDIR: tmp };
      delete env.NODE_COMPILE_CACHE;
      return { cwd: ROOT, maxBuffer: 64 * 1024 * 1024, env };
    };
    const filesIn = (tmp: string) => {
      const dir = path.join(tmp, 'node-compile-cache');
      return fs.existsSync(dir) ? fs.readdirSync(dir, { recursive: true }).length : 0;
    };
    const mainCache = fs.mkdtempSync(path.join(os.tmpdir(), 'emporium-compile-cache-'));
    const cliCache = fs.mkdtempSync(path.join(os.tmpdir(), 'emporium-compile-cache-'));
    try {
      // A setting refused at start: every module is loaded, then the process exits with 1.
      const refused = await run(process.execPath, ['dist/main.js'], {
        ...options(mainCache),
        env: { ...options(mainCache).env, RATE_LIMIT_PER_MINUTE: '0' },
      }).catch((error: { code: number; stderr: string }) => error);
      expect('code' in refused && refused.code).toBe(1);
      await run(process.execPath, ['bin/emporium.js', 'openapi'], options(cliCache));
      // Node writes the cache at exit: one entry per compiled module, so far more than a handful.
      expect(filesIn(mainCache)).toBeGreaterThan(100);
      expect(filesIn(cliCache)).toBeGreaterThan(100);
    } finally {
      fs.rmSync(mainCache, { recursive: true, force: true });
      fs.rmSync(cliCache, { recursive: true, force: true });
    }
  }, 30_000);
});
