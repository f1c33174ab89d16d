import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { freePort } from '../helpers/processes.js';
import { hasChromium, type LaunchedBrowser, launchBrowser, screenshot } from './chromium.js';

/**
 * /docs under its Content-Security-Policy in Chromium: swagger-ui renders the API reference, runs an
 * operation with "Try it out", and the browser reports no CSP violation and no page error.
 */
describe.skipIf(!hasChromium())('/docs in Chromium under its CSP', () => {
  let app: TestApp;
  let base: string;
  let browser: LaunchedBrowser;
  const violations: string[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    app = await buildTestApp({ config: { publicUrl: base } });
    await app.server.listen({ port, host: '127.0.0.1' });
    browser = await launchBrowser();
    browser.page.on('pageerror', (error) => pageErrors.push(error.message));
    browser.page.on('console', (message) => {
      if (/Content.Security.Policy|Refused to/i.test(message.text())) violations.push(message.text());
    });
    // Reported by the page itself, whatever the console says.
    await browser.page.addInitScript(
      "document.addEventListener('securitypolicyviolation', (event) => console.error('Refused to load: CSP ' + event.violatedDirective + ' ' + event.blockedURI));",
    );
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('renders the reference and runs an operation without a CSP violation', async () => {
    const { page } = browser;
    const response = await page.goto(`${base}/docs`);
    expect(response?.headers()['content-security-policy']).toMatch(/script-src 'self'/);
    await page.getByRole('heading', { name: /Emporium API/ }).waitFor();
    // An operation of the operations group: expand it, try it out, execute against this server.
    const operation = page.locator('.opblock-summary', { hasText: '/healthz' }).first();
    await operation.click();
    await page.getByRole('button', { name: 'Try it out' }).first().click();
    await page.getByRole('button', { name: 'Execute' }).first().click();
    await page.locator('.live-responses-table .response-col_status', { hasText: '200' }).first().waitFor();
    // /docs is Swagger UI as its package ships it (third-party markup and colours, e.g. unlabelled
    // copy buttons): not audited with axe-core like our own pages; see docs/decisions.md.
    await screenshot(page, 'docs', { audit: false });
    expect(violations).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
