import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import embeddedSetup from '../setup/embedded.js';
import { CHROMIUM, hasChromium, SCREENSHOTS } from './chromium.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * The browser project's global setup: without Chromium it says so in one line and starts nothing
 * (the suite then skips); with it, it makes sure the dashboard is built and starts the embedded
 * cluster the suite's databases come from.
 */
export default async function setup(project: TestProject) {
  if (!hasChromium()) {
    console.log(
      `Browser tests skipped: no Chromium at ${CHROMIUM} (install it with "apt-get install -y chromium", as .ci/run does).`,
    );
    return;
  }
  // Screenshots of this run only.
  fs.rmSync(SCREENSHOTS, { recursive: true, force: true });
  // Both entries of the build: the dashboard and the operator console (a build older than the console
  // has only the first).
  const built = ['index.html', 'operator.html'].every((f) => fs.existsSync(path.join(ROOT, 'admin/dist', f)));
  if (!built) {
    execFileSync(
      process.execPath,
      [path.join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'admin/vite.config.ts'],
      {
        cwd: ROOT,
        stdio: 'inherit',
      },
    );
  }
  return embeddedSetup(project);
}
