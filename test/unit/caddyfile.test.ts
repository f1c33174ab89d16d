import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The Caddyfiles the README and docs/https-custom-domains.md show are ones Caddy accepts, and they
 * ask the endpoint that exists. Skipped without Debian's caddy (/usr/bin/caddy), as the browser
 * tests skip without Chromium.
 */
const CADDY = '/usr/bin/caddy';
const root = path.resolve(import.meta.dirname, '../..');
const work = mkdtempSync(path.join(tmpdir(), 'caddyfile-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The ```caddyfile blocks of a Markdown file. */
function caddyfilesOf(file: string): string[] {
  const text = readFileSync(path.join(root, file), 'utf8');
  return [...text.matchAll(/```caddyfile\n([\s\S]*?)```/g)].map((match) => match[1] as string);
}

const blocks = [
  ...caddyfilesOf('README.md').map((text, i) => ({ name: `README.md #${i + 1}`, text })),
  ...caddyfilesOf('docs/https-custom-domains.md').map((text, i) => ({
    name: `docs/https-custom-domains.md #${i + 1}`,
    text,
  })),
];

describe('the documented Caddyfiles', () => {
  it('exist, and each asks /api/operator/domains/check and gets certificates on demand', () => {
    expect(blocks.map((b) => b.name)).toEqual(
      expect.arrayContaining(['README.md #1', 'docs/https-custom-domains.md #1']),
    );
    for (const { name, text } of blocks) {
      expect(text, name).toMatch(/ask http:\/\/127\.0\.0\.1:\d+\/api\/operator\/domains\/check\n/);
      expect(text, name).toMatch(/https:\/\/ \{[\s\S]*on_demand[\s\S]*reverse_proxy 127\.0\.0\.1:\d+/);
    }
  });

  it.skipIf(!existsSync(CADDY)).each(blocks)('$name: caddy validate accepts it', async ({ name, text }) => {
    const dir = mkdtempSync(path.join(work, 'v-'));
    const file = path.join(dir, 'Caddyfile');
    writeFileSync(file, text);
    // Caddy's state (its local CA when `tls internal`) goes to the temporary directory, not $HOME.
    const env = { ...process.env, HOME: dir, XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir };
    const { stdout, stderr } = await promisify(execFile)(
      CADDY,
      ['validate', '--config', file, '--adapter', 'caddyfile'],
      { env, timeout: 30_000 },
    );
    expect(`${stdout}${stderr}`, name).toContain('Valid configuration');
    expect(`${stdout}${stderr}`, name).not.toContain('"level":"warn"');
  });
});
