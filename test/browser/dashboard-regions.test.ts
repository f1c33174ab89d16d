import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { type Client, client, createProduct, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { createOrder } from '../helpers/order-factories.js';
import { freePort } from '../helpers/processes.js';
import { hasChromium, type LaunchedBrowser, launchBrowser, screenshot } from './chromium.js';

/**
 * Settings → Shipping and Settings → Taxes as a merchant meets them (issue 31, item 6): countries
 * picked by typing, rates with their conditions, the 409 of a country another zone holds beside the
 * picker, the 412 of a zone someone else renamed, tax regions by country and state, "prices include
 * tax", and the order page's shipping method and tax lines. Every photographed page passes axe-core.
 */
describe.skipIf(!hasChromium())('Settings → Shipping and Taxes in Chromium', () => {
  const EMAIL = 'owner@regions.test';
  const PASSWORD = 'correct horse battery staple';
  let app: TestApp;
  let api: Client;
  let base: string;
  let browser: LaunchedBrowser;
  let page: Page;
  const pageErrors: string[] = [];
  /** The dashboard's writes to zones and tax regions: their bodies and If-Match. */
  const writes: { method: string; url: string; body: unknown; ifMatch: string | undefined }[] = [];

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    app = await buildTestApp({ config: { ...UNLIMITED, publicUrl: base } });
    await app.server.listen({ port, host: '127.0.0.1' });
    const store = await createStoreWithKey(app, { slug: `regions-${port}` });
    api = client(app, store.key);
    await app.services.stores.createAdminUser({
      email: EMAIL,
      password: PASSWORD,
      storeSlug: store.store.slug,
    });
    browser = await launchBrowser();
    page = browser.page;
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('request', (request) => {
      if (!/\/api\/v1\/(shipping-zones|tax-regions)|\/api\/admin\/store/.test(request.url())) return;
      if (!['POST', 'PATCH'].includes(request.method())) return;
      writes.push({
        method: request.method(),
        url: request.url(),
        body: request.postDataJSON(),
        ifMatch: request.headers()['if-match'],
      });
    });
    await page.goto(`${base}/admin/`);
    await page.getByLabel('E-mail').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByLabel('Password').press('Enter');
    await heading('Overview').waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  const heading = (name: string) => page.getByRole('heading', { level: 1, name });
  const section = async (name: 'Shipping' | 'Taxes') => {
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Settings' }).click();
    await heading('Settings').waitFor();
    await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name }).click();
    await heading(name).waitFor();
    await page.waitForLoadState('networkidle');
  };
  const dialog = () => page.getByRole('dialog');
  const countries = () => dialog().getByRole('combobox', { name: 'Countries' });
  const chips = async () =>
    (
      await dialog().getByRole('list', { name: 'Countries: chosen' }).getByRole('listitem').allTextContents()
    ).map((text) => text.replace(/×$/, ''));
  const rate = (n: number) => dialog().getByRole('group', { name: `Rate ${n}` });
  const bound = (n: number, condition: string, label: string) =>
    rate(n).getByRole('group', { name: condition }).getByLabel(label, { exact: true });
  const zones = async () => (await api.get('/api/v1/shipping-zones')).json().data;

  /** Types into the picker and picks the option now active with Enter. */
  async function pickCountry(text: string, option: string, moves = 0) {
    await countries().pressSequentially(text);
    await dialog().getByRole('option', { name: option }).waitFor();
    for (let i = 0; i < moves; i++) await countries().press('ArrowDown');
    const active = await countries().getAttribute('aria-activedescendant');
    expect(await page.locator(`[id="${active}"]`).textContent()).toContain(option);
    await countries().press('Enter');
  }

  async function errorOf(control: Locator): Promise<string> {
    expect(await control.getAttribute('aria-invalid')).toBe('true');
    const ids = (await control.getAttribute('aria-describedby')) ?? '';
    const texts = await Promise.all(ids.split(' ').map((id) => page.locator(`[id="${id}"]`).textContent()));
    return texts.join(' ');
  }

  async function atBothWidths(name: string) {
    await screenshot(page, `${name}-1280`);
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, `${name}-390`);
    await page.setViewportSize({ width: 1280, height: 900 });
  }

  it('creates a zone of two countries picked by typing, with two rates and their conditions', async () => {
    await section('Shipping');
    expect(await page.getByText('No shipping zones yet').count()).toBe(1);
    await page.getByRole('button', { name: 'New zone' }).click();
    await dialog().getByLabel('Zone name').fill('Europe');
    await pickCountry('germ', 'Germany');
    // "aust": Australia, then Austria; ↓ moves to Austria.
    await pickCountry('aust', 'Austria', 1);
    expect(await chips()).toEqual(['Germany', 'Austria']);

    // Escape closes the list and leaves the dialog open; the next clears the text.
    await countries().pressSequentially('fra');
    await dialog()
      .getByRole('option', { name: /France/ })
      .waitFor();
    await atBothWidths('31-country-picker-open');
    await countries().press('Escape');
    expect(await countries().getAttribute('aria-expanded')).toBe('false');
    await countries().press('Escape');
    expect(await countries().inputValue()).toBe('');
    expect(await dialog().isVisible()).toBe(true);

    await rate(1).getByLabel('Price (USD)').fill('4.90');
    await rate(1).getByLabel('Free from (USD)').fill('50');
    await bound(1, 'Delivery (days)', 'From').fill('2');
    await bound(1, 'Delivery (days)', 'To').fill('4');
    await dialog().getByRole('button', { name: 'Add a rate' }).click();
    await rate(2).getByLabel('Name', { exact: true }).fill('Express');
    await rate(2).getByLabel('Price (USD)').fill('14.90');
    await bound(2, 'Weight (g)', 'Up to').fill('5000');
    await bound(2, 'Delivery (days)', 'From').fill('1');
    await bound(2, 'Delivery (days)', 'To').fill('1');
    await atBothWidths('31-shipping-zone-form-rates');
    // The top of the form: the name and the chosen countries.
    await dialog().getByLabel('Zone name').focus();
    await atBothWidths('31-shipping-zone-form');
    await dialog().getByRole('button', { name: 'Create zone' }).click();
    await dialog().waitFor({ state: 'detached' });

    await page.getByText('Europe was created.').waitFor();
    const row = page.getByRole('row').filter({ hasText: 'Europe' }).filter({ hasText: '2 rates' });
    await row.waitFor();
    expect(await row.textContent()).toContain('Germany, Austria');
    expect(await row.textContent()).toContain('2 rates');
    expect(await row.textContent()).toContain('Express: $14.90, up to 5 kg, 1 day');
    const [zone] = await zones();
    expect(zone).toMatchObject({
      name: 'Europe',
      countries: ['DE', 'AT'],
      rates: [
        { name: 'Standard', price: '4.90', free_above: '50.00', delivery_days_min: 2, delivery_days_max: 4 },
        {
          name: 'Express',
          price: '14.90',
          max_weight_grams: 5000,
          delivery_days_min: 1,
          delivery_days_max: 1,
        },
      ],
    });
  });

  it('edits the zone: sends only what changed, with If-Match, and the rates keep their ids', async () => {
    const [before] = await zones();
    const loaded = page.waitForResponse((r) => r.url().endsWith(`/shipping-zones/${before.id}`));
    await page.getByRole('button', { name: 'Edit Europe' }).click();
    await loaded;
    await dialog().getByRole('button', { name: 'Remove Austria' }).click();
    await pickCountry('ch', 'Switzerland');
    expect(await chips()).toEqual(['Germany', 'Switzerland']);
    await rate(1).getByLabel('Price (USD)').fill('5.90');
    writes.length = 0;
    await dialog().getByRole('button', { name: 'Save zone' }).click();
    await dialog().waitFor({ state: 'detached' });

    expect(writes).toHaveLength(1);
    expect(writes[0]?.method).toBe('PATCH');
    expect(Object.keys(writes[0]?.body as object).sort()).toEqual(['countries', 'rates']);
    expect(writes[0]?.ifMatch).toMatch(/^(W\/)?"/);
    const [after] = await zones();
    expect(after.countries).toEqual(['DE', 'CH']);
    expect(after.rates.map((r: { id: string; price: string }) => [r.id, r.price])).toEqual([
      [before.rates[0].id, '5.90'],
      [before.rates[1].id, '14.90'],
    ]);
  });

  it('says beside the picker that a country is in another zone (409), and shows a stale edit (412)', async () => {
    await page.getByRole('button', { name: 'New zone' }).click();
    await dialog().getByLabel('Zone name').fill('DACH');
    await pickCountry('germ', 'Germany');
    await rate(1).getByLabel('Price (USD)').fill('3');
    await dialog().getByRole('button', { name: 'Create zone' }).click();
    await dialog().locator('.field-error').waitFor();
    expect(await errorOf(countries())).toContain('DE is already in the zone "Europe"');
    // Said once, beside the picker: no banner repeating it.
    expect(await dialog().getByText('is already in the zone').count()).toBe(1);
    expect(await page.evaluate<string | undefined>('document.activeElement?.getAttribute("role")')).toBe(
      'combobox',
    );
    await atBothWidths('31-shipping-zone-409');
    await dialog().getByRole('button', { name: 'Cancel' }).click();

    // The rest of the world: one zone, found by typing "world".
    await page.getByRole('button', { name: 'New zone' }).click();
    await dialog().getByLabel('Zone name').fill('Everywhere else');
    await pickCountry('world', 'Rest of the world');
    await rate(1).getByLabel('Price (USD)').fill('19');
    await dialog().getByRole('button', { name: 'Create zone' }).click();
    await dialog().waitFor({ state: 'detached' });
    expect(await page.getByRole('row').filter({ hasText: 'Everywhere else' }).textContent()).toContain(
      'Rest of the world',
    );

    // Renamed elsewhere while the form is open, renamed here too: nothing saved, Reload shows theirs.
    const [europe] = (await zones()).filter((z: { name: string }) => z.name === 'Europe');
    const loaded = page.waitForResponse((r) => r.url().endsWith(`/shipping-zones/${europe.id}`));
    await page.getByRole('button', { name: 'Edit Europe' }).click();
    await loaded;
    expect((await api.patch(`/api/v1/shipping-zones/${europe.id}`, { name: 'Europe (EU)' })).statusCode).toBe(
      200,
    );
    await dialog().getByLabel('Zone name').fill('Western Europe');
    await dialog().getByRole('button', { name: 'Save zone' }).click();
    const stale = dialog().getByRole('alert').filter({ hasText: 'Someone else changed' });
    await stale.waitFor();
    expect(await stale.textContent()).toContain('Someone else changed this zone since you opened it: name.');
    await stale.getByRole('button', { name: 'Reload' }).click();
    expect(await dialog().getByLabel('Zone name').inputValue()).toBe('Europe (EU)');
    await dialog().getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('row').filter({ hasText: 'Europe (EU)' }).waitFor();
    await atBothWidths('31-shipping-zones');
  });

  it('deletes a zone after a confirmation', async () => {
    await page.getByRole('button', { name: 'Delete Europe (EU)' }).click();
    const confirm = page.getByTestId('confirm-dialog');
    await confirm.getByRole('button', { name: 'Delete zone' }).click();
    await page.getByText('Europe (EU) was deleted.').waitFor();
    expect((await zones()).map((z: { name: string }) => z.name)).toEqual(['Everywhere else']);
    // The notice comes with the answer; the list redraws from its re-read just after.
    await page.getByRole('row').filter({ hasText: 'Europe (EU)' }).waitFor({ state: 'detached' });
  });

  it('adds, edits and deletes tax regions by country and state, and saves "prices include tax"', async () => {
    await section('Taxes');
    await page.getByRole('button', { name: 'New tax region' }).click();
    await dialog().getByLabel('Country').selectOption({ label: 'United States' });
    await dialog().getByRole('option', { name: 'California (US-CA)' }).waitFor({ state: 'attached' });
    await dialog().getByLabel('Region').selectOption({ label: 'California (US-CA)' });
    await dialog().getByLabel('Tax name').fill('Sales tax');
    await dialog().getByLabel('Rate (%)').fill('7.25');
    await atBothWidths('31-tax-region-form');
    await dialog().getByRole('button', { name: 'Create tax region' }).click();
    await dialog().waitFor({ state: 'detached' });
    await page.getByText('Sales tax 7.25 % was created.').waitFor();

    // California again: 409, said under the region.
    await page.getByRole('button', { name: 'New tax region' }).click();
    await dialog().getByLabel('Country').selectOption({ label: 'United States' });
    await dialog().getByRole('option', { name: 'California (US-CA)' }).waitFor({ state: 'attached' });
    await dialog().getByLabel('Region').selectOption({ label: 'California (US-CA)' });
    await dialog().getByLabel('Tax name').fill('Sales tax');
    await dialog().getByLabel('Rate (%)').fill('8');
    await dialog().getByRole('button', { name: 'Create tax region' }).click();
    await dialog().getByRole('alert').waitFor();
    expect(await errorOf(dialog().getByLabel('Region'))).toContain('a tax region for US-CA already exists');
    await dialog().getByRole('button', { name: 'Cancel' }).click();
    await dialog().waitFor({ state: 'detached' });

    await page.getByRole('button', { name: 'New tax region' }).click();
    await dialog().getByLabel('Country').selectOption({ label: 'Germany' });
    await dialog().getByLabel('Tax name').fill('VAT');
    await dialog().getByLabel('Rate (%)').fill('19');
    await dialog()
      .getByLabel(/Tax shipping too/)
      .check();
    await dialog().getByRole('button', { name: 'Create tax region' }).click();
    await dialog().waitFor({ state: 'detached' });

    const regions = (await api.get('/api/v1/tax-regions')).json().data;
    expect(regions).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          country: 'US',
          region: 'US-CA',
          name: 'Sales tax',
          rate: '7.25',
          shipping_taxable: false,
        }),
        expect.objectContaining({
          country: 'DE',
          region: null,
          name: 'VAT',
          rate: '19',
          shipping_taxable: true,
        }),
      ]),
    );
    const california = page.getByRole('row').filter({ hasText: 'California' });
    expect(await california.textContent()).toContain('California (US-CA)');
    expect(await page.getByRole('row').filter({ hasText: 'Germany' }).textContent()).toContain(
      'Whole country',
    );

    // An edit sends the changed field alone, with If-Match.
    await page.getByRole('button', { name: 'Edit VAT for Germany' }).click();
    await dialog().getByLabel('Rate (%)').fill('16');
    writes.length = 0;
    await dialog().getByRole('button', { name: 'Save tax region' }).click();
    await dialog().waitFor({ state: 'detached' });
    expect(writes.map((w) => [w.method, w.body])).toEqual([['PATCH', { rate: '16' }]]);
    expect(writes[0]?.ifMatch).toMatch(/^(W\/)?"/);
    await page.getByRole('row').filter({ hasText: 'Germany' }).filter({ hasText: '16 %' }).waitFor();

    // Prices include tax: saved alone, with If-Match.
    writes.length = 0;
    await page.getByLabel(/Prices include tax/).check();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('The setting was saved.').waitFor();
    expect(writes.map((w) => [w.method, w.body])).toEqual([['PATCH', { prices_include_tax: true }]]);
    expect(writes[0]?.ifMatch).toMatch(/^(W\/)?"/);
    expect((await api.get('/api/v1/store')).json().data.prices_include_tax).toBe(true);
    await atBothWidths('31-taxes');

    await page.getByRole('button', { name: 'Delete VAT for Germany' }).click();
    await page.getByTestId('confirm-dialog').getByRole('button', { name: 'Delete tax region' }).click();
    await page.getByText('VAT for Germany was deleted.').waitFor();
    expect((await api.get('/api/v1/tax-regions')).json().data).toHaveLength(1);
    expect(pageErrors).toEqual([]);
  });

  it('shows the order’s shipping method and its tax lines, "incl." when the prices contain the tax', async () => {
    const mug = await createProduct(api, { name: 'Mug', price: '20.00', inventory: 100 });
    const address = { line1: '1 Main St', city: 'Los Angeles', region: 'CA', postal_code: '90001' };
    // The store's prices include tax now (the test above): 40.00 contains 40 × 7.25 / 107.25 = 2.70.
    const included = await createOrder(api, {
      items: [{ product_id: mug.id, quantity: 2 }],
      shipping_address: { ...address, country: 'US' },
    });
    await page.goto(`${base}/admin/orders/${included.id}`);
    const totals = page.getByTestId('order-totals');
    await totals.waitFor();
    expect(await totals.textContent()).toContain('Shipping (Standard)');
    expect(await page.getByTestId('order-tax-line').allTextContents()).toEqual([
      'incl. Sales tax 7.25 %$2.70',
    ]);
    await atBothWidths('31-order-tax-lines-included');

    expect((await api.patch('/api/v1/store', { prices_include_tax: false })).statusCode).toBe(200);
    const added = await createOrder(api, {
      items: [{ product_id: mug.id, quantity: 2 }],
      shipping_address: { ...address, country: 'US' },
    });
    await page.goto(`${base}/admin/orders/${added.id}`);
    await totals.waitFor();
    // 40.00 × 7.25 % = 2.90, shipping untaxed; 40.00 + 19.00 + 2.90.
    expect(await page.getByTestId('order-tax-line').allTextContents()).toEqual(['Sales tax 7.25 %$2.90']);
    expect(await page.getByTestId('order-total').textContent()).toBe('$61.90');
    expect(pageErrors).toEqual([]);
  });
});
