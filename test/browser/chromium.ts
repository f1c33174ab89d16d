import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

/** Debian's Chromium; Playwright's own browsers are never downloaded. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function hasChromium(): boolean {
  return fs.existsSync(CHROMIUM);
}

export const SCREENSHOTS = path.resolve(import.meta.dirname, '../../test-artifacts/screenshots');

export interface LaunchedBrowser {
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

/**
 * Headless Chromium on a fresh profile (a new user-data-dir, removed afterwards), quiet: no background
 * networking, component updates, sync or QUIC.
 */
export async function launchBrowser(
  viewport = { width: 1280, height: 900 },
  options: { timezoneId?: string } = {},
): Promise<LaunchedBrowser> {
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'emporium-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport,
    locale: 'en-US',
    timezoneId: options.timezoneId ?? 'UTC',
  });
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(15_000);
  return {
    context,
    page,
    async close() {
      await context.close();
      fs.rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/**
 * axe-core's WCAG 2.1 AA rules on the page as it is now; the serious and critical violations, each as
 * "rule (impact): help — selectors", so a failing test names what to fix.
 */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  // A list being refreshed is drawn faded (`.is-refreshing`) for a moment: audit what it settles on,
  // not the fade (a loaded machine photographed the orders list mid-refresh, below AA contrast).
  await page.locator('.is-refreshing').first().waitFor({ state: 'detached', timeout: 10_000 });
  // Evaluated through the DevTools protocol, so the page's own CSP (script-src 'self') stays as served.
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    type Axe = { run(context: unknown, options: unknown): Promise<{ violations: unknown }> };
    const { axe, document } = globalThis as unknown as { axe: Axe; document: unknown };
    const result = await axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21aa'] },
    });
    return result.violations;
  });
  return (violations as AxeViolation[])
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/**
 * A full-page screenshot under test-artifacts/screenshots (git-ignored), for a person to look at. Every
 * page a test photographs is also checked with axe-core: a serious or critical violation fails the test.
 */
export async function screenshot(
  page: Page,
  name: string,
  options: { audit?: boolean } = {},
): Promise<string> {
  const violations = options.audit === false ? [] : await accessibilityViolations(page);
  if (violations.length > 0)
    throw new Error(`accessibility violations on ${name}:\n${violations.join('\n')}`);
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  const file = path.join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}
