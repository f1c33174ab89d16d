import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * packages/sdk as npm would publish it (issue 29, item 10): `npm pack` builds it (prepack) and the
 * tarball holds the compiled modules with their declarations, the README and the licence, nothing
 * else; installed from that tarball into a project of its own, its exports resolve, for Node at run
 * time and for TypeScript's NodeNext resolution. Offline: the SDK's dependencies are linked from
 * this repository's node_modules instead of being downloaded.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const SDK = path.join(ROOT, 'packages/sdk');
const run = promisify(execFile);

interface PackResult {
  name: string;
  version: string;
  filename: string;
  files: { path: string }[];
}

let dir: string;
let packed: PackResult;
let project: string;

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'emporium-sdk-pack-'));
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', dir], {
    cwd: SDK,
    maxBuffer: 16 * 1024 * 1024,
  });
  packed = (JSON.parse(stdout) as PackResult[])[0] as PackResult;
  // A project that installed the tarball: node_modules/@emporium/sdk, and its dependencies.
  project = path.join(dir, 'project');
  const installed = path.join(project, 'node_modules/@emporium/sdk');
  await fs.mkdir(installed, { recursive: true });
  await run('tar', ['-xzf', path.join(dir, packed.filename), '-C', installed, '--strip-components=1']);
  const manifest = JSON.parse(await fs.readFile(path.join(SDK, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  const resolveFromSdk = createRequire(path.join(SDK, 'package.json'));
  for (const dependency of Object.keys(manifest.dependencies)) {
    const source = path.dirname(resolveFromSdk.resolve(`${dependency}/package.json`));
    await fs.mkdir(path.dirname(path.join(project, 'node_modules', dependency)), { recursive: true });
    await fs.symlink(source, path.join(project, 'node_modules', dependency), 'dir');
  }
  await fs.writeFile(path.join(project, 'package.json'), JSON.stringify({ type: 'module', private: true }));
}, 120_000);
afterAll(async () => {
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

describe('the @emporium/sdk tarball', () => {
  it('holds the compiled modules and their declarations, the README and the licence, nothing else', async () => {
    const modules = (await fs.readdir(path.join(SDK, 'src')))
      .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'))
      .map((name) => name.replace(/\.ts$/, ''));
    expect(modules).toContain('index');
    const expected = [
      'LICENSE',
      'README.md',
      'package.json',
      ...modules.flatMap((name) => [`dist/${name}.js`, `dist/${name}.d.ts`]),
    ];
    expect(packed.files.map((file) => file.path).sort()).toEqual(expected.sort());
    expect(packed.name).toBe('@emporium/sdk');
  });

  it('resolves its exports at run time from a project that installed it', async () => {
    const script =
      "const sdk = await import('@emporium/sdk'); const pkg = await import('@emporium/sdk/package.json', { with: { type: 'json' } });" +
      'console.log(JSON.stringify({ exports: Object.keys(sdk).sort(), version: pkg.default.version }));';
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: project });
    const answer = JSON.parse(stdout) as { exports: string[]; version: string };
    expect(answer.exports).toEqual(
      expect.arrayContaining([
        'EmporiumError',
        'WebhookVerificationError',
        'createEmporiumClient',
        'verifyWebhook',
      ]),
    );
    expect(answer.version).toBe(packed.version);
  });

  it('gives TypeScript its types under NodeNext resolution, strict', { timeout: 120_000 }, async () => {
    await fs.writeFile(
      path.join(project, 'consumer.ts'),
      [
        "import { createEmporiumClient, type EmporiumClient, type paths } from '@emporium/sdk';",
        "const client: EmporiumClient = createEmporiumClient({ baseUrl: 'https://shop.example.com', apiKey: 'sk_x' });",
        "type Order = paths['/api/v1/orders/{id}']['get']['responses'][200]['content']['application/json']['data'];",
        "export const status: Order['status'] = 'pending';",
        'export { client };',
        '',
      ].join('\n'),
    );
    const tsconfig = {
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        noEmit: true,
        lib: ['ES2022', 'DOM'],
        types: [],
      },
      files: ['consumer.ts'],
    };
    await fs.writeFile(path.join(project, 'tsconfig.json'), JSON.stringify(tsconfig));
    const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
    const compiled = await run(process.execPath, [tsc, '-p', project], { cwd: project }).catch(
      (error: { stdout?: string }) => ({ stdout: `tsc failed:\n${error.stdout}` }),
    );
    expect(compiled.stdout).toBe('');
  });
});
