import { type ParsedMail, simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BackgroundWorker } from '../../src/worker.js';
import { buildTestApp, startTestWorker, type TestApp } from '../helpers/app.js';
import {
  type Client,
  client,
  createProduct,
  type ProductData,
  UNLIMITED,
} from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { type LoggedMail, mailsOf } from '../helpers/notification-log.js';
import { checkoutBody } from '../helpers/order-factories.js';
import { createTaxRegion, createZone } from '../helpers/region-factories.js';
import { type CaughtMessage, type SmtpCatcher, startSmtpCatcher } from '../helpers/smtp-catcher.js';

/**
 * Contract §13 from the outside: every cause is an HTTP request (a storefront checkout, POST /orders,
 * fulfil, refund, cancel, notify-me and a restock, a sale past the low-stock threshold, a kind turned
 * off through the template API), the background worker sends, a real SMTP server receives, and a
 * real MIME parser reads each message as a mail client would: headers, both parts, the order's
 * lines, totals and address, the links on the store's custom domain, escaping, no tracking pixel.
 */
const ORIGIN = 'http://localhost:3000';
const CONTACT = 'orders@oak.test';
const LOGO = 'https://cdn.example.com/oak.png';
const MERCHANT_ADDRESS = {
  first_name: 'Grace',
  last_name: 'Hopper',
  line1: '1 Harbor Way',
  city: 'San Diego',
  region: 'CA',
  postal_code: '92101',
  country: 'US',
};
const ADDRESS = {
  firstName: 'Ada',
  lastName: 'Lovelace',
  line1: '10 Analytical Row',
  city: 'Los Angeles',
  region: 'CA',
  postalCode: '90001',
  country: 'US',
};

let app: TestApp;
let smtp: SmtpCatcher;
let worker: BackgroundWorker;
let api: Client;
let slug: string;
let desk: ProductData;
let rateId: string;
let coupon: string;
const shop = () => client(app);

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  app = await buildTestApp({ config: { ...UNLIMITED, publicUrl: ORIGIN, smtpUrl: smtp.url } });
  worker = startTestWorker(app);
  const made = await createStoreWithKey(app);
  api = client(app, made.key);
  slug = made.store.slug;
  const settings = await api.patch('/api/v1/store', {
    name: 'Oak & Iron',
    contact_email: CONTACT,
    logo: LOGO,
    colors: { primary: '#334455' },
    custom_domain: 'shop.oak.test',
  });
  expect(settings.statusCode, settings.body).toBe(200);
  const zone = await createZone(
    { api },
    { name: 'US', countries: ['US'], rates: [{ name: 'Express', price: '9.00' }] },
  );
  rateId = zone.rates[0]?.id as string;
  await createTaxRegion({ api }, { country: 'US', region: 'US-CA', name: 'Sales tax', rate: '7.25' });
  coupon = `OAK${Date.now()}`;
  const discount = await api.post('/api/v1/discounts', { code: coupon, type: 'percentage', value: '10' });
  expect(discount.statusCode, discount.body).toBe(201);
  desk = await createProduct(api, { name: 'Walnut <desk>', price: '100.00', inventory: 50, sku: 'DESK' });
});
afterAll(async () => {
  await worker?.stop();
  await app?.close();
  await smtp?.close();
});

const usd = (amount: number) =>
  new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(amount);

/** The first message to `to` whose subject matches, parsed as a mail client parses it. */
async function mailTo(to: string, subject: RegExp): Promise<{ caught: CaughtMessage; mail: ParsedMail }> {
  const caught = await smtp.waitFor(
    (m) => m.envelope.to.includes(to) && subject.test(m.subject ?? ''),
    15_000,
  );
  return { caught, mail: await simpleParser(caught.raw) };
}

/** What a mail client shows of a message, and what every message of the store must be. */
function expectStoreMessage({ caught, mail }: { caught: CaughtMessage; mail: ParsedMail }, to: string) {
  expect(mail.from?.value).toEqual([{ name: 'Oak & Iron', address: 'no-reply@localhost' }]);
  expect(mail.replyTo?.value).toEqual([{ name: '', address: CONTACT }]);
  expect(mail.to && !Array.isArray(mail.to) ? mail.to.value : []).toEqual([{ name: '', address: to }]);
  expect(caught.envelope.to).toEqual([to]);
  expect(mail.subject).toContain('Oak & Iron');
  expect(caught.raw).toMatch(/Content-Type: multipart\/alternative/i);
  const html = mail.html || '';
  const text = mail.text ?? '';
  expect(html.length).toBeGreaterThan(0);
  expect(text.length).toBeGreaterThan(0);
  // The store's face, and nothing loaded from elsewhere: no script, no stylesheet, no image but the logo.
  expect(html).toContain(`src="${LOGO}"`);
  expect(html).toContain('#334455');
  expect(html).not.toMatch(/<script|<link|@import|url\(/i);
  expect([...html.matchAll(/<img\b[^>]*\bsrc="([^"]*)"/gi)].map((m) => m[1])).toEqual([LOGO]);
  // The plain-text part reads on its own: no markup (but the product's own name, which looks like it).
  expect(text.replaceAll('Walnut <desk>', '')).not.toMatch(/<\/?[a-z][^>]*>/i);
  expect(text).not.toMatch(/\{\{|\{%/);
  return { html, text };
}

async function placeByCheckout(email: string, quantity: number) {
  const res = await shop().post(
    `/api/storefront/${slug}/checkout`,
    checkoutBody([{ productId: desk.id, quantity }], {
      email,
      shippingAddress: ADDRESS,
      shippingRateId: rateId,
      couponCode: coupon,
      paymentMethod: 'test_card',
      cardToken: 'tok_visa',
    }),
  );
  expect(res.statusCode, res.body).toBe(201);
  const got = await api.get(`/api/v1/orders/${res.json().data.id}`);
  expect(got.statusCode).toBe(200);
  return got.json().data as MerchantOrder;
}

interface MerchantOrder {
  id: string;
  order_number: string;
  subtotal: number;
  discount_amount: number;
  shipping_amount: number;
  tax_amount: number;
  total: number;
  amount_paid: number;
  tax_lines: { name: string; rate: string; amount: number }[];
}

/** Waits until every e-mail of the store's log is sent (none pending); fails on a failed one. */
async function allSent(of: Client, timeoutMs = 15_000): Promise<LoggedMail[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const mails = await mailsOf(of);
    expect(mails.filter((m) => m.status === 'failed')).toEqual([]);
    if (mails.every((m) => m.status === 'sent')) return mails;
    if (Date.now() > deadline) throw new Error(`still pending: ${JSON.stringify(mails)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('an order placed in the shop, then shipped and refunded', () => {
  let order: MerchantOrder;
  const buyer = `ada.${Date.now()}@example.com`;

  it("the buyer's confirmation: lines, totals, address and the link on the custom domain", async () => {
    order = await placeByCheckout(buyer, 2);
    expect(order.discount_amount).toBeGreaterThan(0);
    expect(order.tax_lines.length).toBeGreaterThan(0);
    const message = await mailTo(buyer, /confirmed/);
    const { html, text } = expectStoreMessage(message, buyer);
    expect(message.mail.subject).toContain(`#${order.order_number}`);
    const link = `http://shop.oak.test/account/orders/${order.order_number}`;
    expect(html).toContain(`href="${link}"`);
    expect(text).toContain(link);
    // A value is escaped in HTML (the product's name is markup-like), and plain in the text part.
    expect(html).toContain('Walnut &lt;desk&gt;');
    expect(html).not.toContain('Walnut <desk>');
    expect(text).toContain(`Walnut <desk>: 2 × ${usd(100)} = ${usd(200)}`);
    for (const part of [html, text]) {
      expect(part).toContain(usd(order.subtotal));
      expect(part).toContain(`Discount (${coupon})`);
      expect(part).toContain(usd(order.discount_amount));
      expect(part).toContain('Shipping (Express)');
      expect(part).toContain(usd(order.shipping_amount));
      for (const tax of order.tax_lines) {
        expect(part).toContain(`${tax.name} ${tax.rate}%`);
        expect(part).toContain(usd(tax.amount));
      }
      expect(part).toContain(usd(order.total));
      expect(part).toContain('10 Analytical Row');
      expect(part).toContain('90001 Los Angeles, CA');
    }
  });

  it('the new-order e-mail goes to the contact e-mail, with the dashboard link', async () => {
    const message = await mailTo(CONTACT, new RegExp(`New order #${order.order_number}\\b`));
    const { html, text } = expectStoreMessage(message, CONTACT);
    expect(html).toContain(`href="${ORIGIN}/admin/orders/${order.id}"`);
    expect(text).toContain(`${ORIGIN}/admin/orders/${order.id}`);
    expect(text).toContain(buyer);
  });

  it('fulfilment: the shipping confirmation with carrier, tracking number and tracking link', async () => {
    const fulfil = await api.post(`/api/v1/orders/${order.id}/fulfill`, {
      carrier: 'UPS',
      tracking_number: '1Z999',
      tracking_url: 'https://track.example.com/1Z999',
    });
    expect(fulfil.statusCode, fulfil.body).toBe(200);
    const message = await mailTo(buyer, /shipped/);
    const { html, text } = expectStoreMessage(message, buyer);
    expect(message.mail.subject).toContain(`#${order.order_number}`);
    expect(text).toContain('UPS');
    expect(text).toContain('1Z999');
    expect(text).toContain('https://track.example.com/1Z999');
    expect(html).toContain('href="https://track.example.com/1Z999"');
  });

  it('a refund: the amount refunded and what remains paid', async () => {
    const refund = await api.post(`/api/v1/orders/${order.id}/refunds`, { amount: 50 });
    expect(refund.statusCode, refund.body).toBe(201);
    const message = await mailTo(buyer, /refund/i);
    const { html, text } = expectStoreMessage(message, buyer);
    expect(message.mail.subject).toContain(`#${order.order_number}`);
    for (const part of [html, text]) {
      expect(part).toContain(usd(50));
      expect(part).toContain(usd(Math.round((order.amount_paid - 50) * 100) / 100));
    }
  });
});

describe('an order by POST /orders with send_receipt, then cancelled', () => {
  it('confirms it to the buyer, then tells them it is cancelled', async () => {
    const buyer = `grace.${Date.now()}@example.com`;
    const res = await api.post('/api/v1/orders', {
      customer: { email: buyer, first_name: 'Grace', last_name: 'Hopper' },
      items: [{ product_id: desk.id, quantity: 1 }],
      shipping_address: MERCHANT_ADDRESS,
      send_receipt: true,
    });
    expect(res.statusCode, res.body).toBe(201);
    const order = res.json().data as MerchantOrder;
    expectStoreMessage(await mailTo(buyer, /confirmed/), buyer);
    const cancel = await api.post(`/api/v1/orders/${order.id}/cancel`, { reason: 'customer' });
    expect(cancel.statusCode, cancel.body).toBe(200);
    const message = await mailTo(buyer, /cancel/i);
    expectStoreMessage(message, buyer);
    expect(message.mail.subject).toContain(`#${order.order_number}`);
  });
});

describe('stock', () => {
  it('back in stock: the subscriber of a sold-out product gets one e-mail when it returns', async () => {
    const apron = await createProduct(api, { name: 'Linen apron', price: '24.00', inventory: 0 });
    const subscriber = `sub.${Date.now()}@example.com`;
    const signUp = await shop().post(`/api/storefront/${slug}/products/${apron.slug}/notify-me`, {
      email: subscriber,
    });
    expect(signUp.statusCode, signUp.body).toBe(202);
    const restock = await api.patch(`/api/v1/inventory/${apron.id}`, { type: 'product', adjustment: 3 });
    expect(restock.statusCode, restock.body).toBe(200);
    const message = await mailTo(subscriber, /back in stock/);
    const { html, text } = expectStoreMessage(message, subscriber);
    expect(message.mail.subject).toContain('Linen apron');
    const link = `http://shop.oak.test/products/${apron.slug}`;
    expect(html).toContain(`href="${link}"`);
    expect(text).toContain(link);
    expect(text).toContain(usd(24));
    // The sign-up ended: a second return sends nothing more.
    await api.patch(`/api/v1/inventory/${apron.id}`, { type: 'product', adjustment: -3 });
    await api.patch(`/api/v1/inventory/${apron.id}`, { type: 'product', adjustment: 3 });
    await allSent(api);
    expect(smtp.messages.filter((m) => m.envelope.to.includes(subscriber))).toHaveLength(1);
  });

  it('low stock: the store is told once when a sale crosses the threshold', async () => {
    const lamp = await createProduct(api, {
      name: 'Brass lamp',
      price: '40.00',
      inventory: 5,
      low_stock_threshold: 3,
      sku: 'LAMP',
    });
    const sold = await api.post('/api/v1/orders', {
      customer: { email: `walk-in.${Date.now()}@example.com` },
      items: [{ product_id: lamp.id, quantity: 3 }],
      shipping_address: MERCHANT_ADDRESS,
    });
    expect(sold.statusCode, sold.body).toBe(201);
    const message = await mailTo(CONTACT, /Brass lamp/);
    const { html, text } = expectStoreMessage(message, CONTACT);
    expect(text).toContain('LAMP');
    expect(html).toContain(`href="${ORIGIN}/admin/products/${lamp.id}"`);
  });
});

describe('two stores, one buyer', () => {
  it("each store's mail names that store and goes to its own buyer; a kind turned off over the API sends nothing", async () => {
    const other = await createStoreWithKey(app);
    const otherApi = client(app, other.key);
    expect(
      (await otherApi.patch('/api/v1/store', { name: 'Birch Co', contact_email: 'hi@birch.test' }))
        .statusCode,
    ).toBe(200);
    const off = await otherApi.put('/api/v1/notifications/templates/new_order', { enabled: false });
    expect(off.statusCode, off.body).toBe(200);
    expect(off.json().data.enabled).toBe(false);
    const mug = await createProduct(otherApi, { name: 'Birch mug', price: '12.00', inventory: 10 });
    const buyer = `shared.${Date.now()}@example.com`;
    const theirs = await shop().post(
      `/api/storefront/${other.store.slug}/checkout`,
      checkoutBody([{ productId: mug.id, quantity: 1 }], { email: buyer }),
    );
    expect(theirs.statusCode, theirs.body).toBe(201);
    const mine = await placeByCheckout(buyer, 1);

    const birch = await mailTo(buyer, /Birch Co/);
    expect(birch.mail.from?.value).toEqual([{ name: 'Birch Co', address: 'no-reply@localhost' }]);
    expect(birch.mail.replyTo?.value).toEqual([{ name: '', address: 'hi@birch.test' }]);
    expect(birch.mail.text).toContain(`${ORIGIN}/shop/${other.store.slug}/account/orders/`);
    expect(`${birch.mail.html}${birch.mail.text}`).not.toMatch(/Oak|Walnut|shop\.oak\.test/);
    const oak = await mailTo(buyer, new RegExp(`#${mine.order_number}\\b.*Oak & Iron`));
    expect(`${oak.mail.html}${oak.mail.text}`).not.toMatch(/Birch/);

    const theirLog = await allSent(otherApi);
    expect(theirLog.map((m) => `${m.kind} → ${m.to}`)).toEqual([`order_confirmation → ${buyer}`]);
    expect(smtp.messages.filter((m) => m.envelope.to.includes('hi@birch.test'))).toHaveLength(0);
  });
});

describe("the store's log", () => {
  it('says sent for every message received, under its own Message-ID and subject', async () => {
    const log = await allSent(api);
    expect(log.length).toBeGreaterThanOrEqual(9);
    for (const entry of log) {
      const received = smtp.messages.filter((m) => m.headers['message-id'] === `<${entry.id}@localhost>`);
      expect(received, `${entry.kind} → ${entry.to}`).toHaveLength(1);
      expect(received[0]?.envelope.to).toEqual([entry.to]);
      expect(received[0]?.subject).toBe(entry.subject);
      expect(entry.attempts).toBe(1);
      expect(entry.last_error).toBeNull();
      expect(entry.sent_at).not.toBeNull();
    }
    expect(new Set(log.map((m) => m.kind))).toEqual(
      new Set([
        'order_confirmation',
        'new_order',
        'shipping_confirmation',
        'refund_issued',
        'order_cancelled',
        'back_in_stock',
        'low_stock',
      ]),
    );
  });
});
