import { simpleParser } from 'mailparser';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { describe, expect, it } from 'vitest';
import type { StoreRow } from '../../stores/index.js';
import { NOTIFICATION_KINDS, type NotificationKind } from '../kinds.js';
import { renderMessage } from '../render-message.js';
import { previewVariables } from '../sample-data.js';
import { storeLinksOf } from '../variables.js';
import { DEFAULT_TEMPLATES } from './default-templates.js';

/**
 * Every default kind rendered with sample data: no Liquid left, well-formed table markup with the
 * store's face, the order's lines, totals, address and link, a text part without markup, and the
 * message as a mail client parses it (nodemailer builds it, mailparser reads it).
 */

const store = {
  id: '01900000-0000-7000-8000-0000000000aa',
  slug: 'acme',
  name: 'Acme & Sons',
  currency: 'EUR',
  logo: 'https://cdn.example.com/acme.png',
  colors: { primary: '#123456', accent: '#abcdef' },
  custom_domain: 'shop.acme.test',
  contact_email: 'hello@acme.test',
  low_stock_threshold: 5,
} as unknown as StoreRow;
const links = storeLinksOf(store, 'https://emporium.test');

const VOID = new Set(['meta', 'img', 'br', 'hr', 'link', 'input']);

/** The open tags left unclosed, or a mismatch, of an HTML document: [] when it is well formed. */
function unbalancedTags(html: string): string[] {
  const stack: string[] = [];
  const problems: string[] = [];
  for (const match of html.matchAll(/<(\/?)([a-zA-Z][a-zA-Z0-9]*)\b[^>]*?(\/?)>/g)) {
    const [, closing, rawName, selfClosing] = match;
    const name = (rawName as string).toLowerCase();
    if (VOID.has(name) || selfClosing) continue;
    if (!closing) stack.push(name);
    else if (stack.pop() !== name) problems.push(`</${name}> at ${match.index}`);
  }
  return [...problems, ...stack.map((name) => `<${name}> not closed`)];
}

const render = (kind: NotificationKind) =>
  renderMessage(DEFAULT_TEMPLATES[kind], previewVariables(kind, store, links, undefined));

const ORDER_KINDS = NOTIFICATION_KINDS.filter((k) => k !== 'back_in_stock' && k !== 'low_stock');

describe.each(NOTIFICATION_KINDS)('the default %s', (kind) => {
  const message = render(kind);

  it('leaves no Liquid behind and names the store in the subject', () => {
    for (const part of [message.subject, message.html, message.text]) {
      expect(part).not.toMatch(/\{\{|\}\}|\{%|%\}/);
    }
    expect(message.subject).toMatch(/ — Acme & Sons$/);
    expect(message.subject).not.toContain('\n');
  });

  it('is well-formed table markup with inline styles, the logo and colours, and nothing else loaded', () => {
    expect(unbalancedTags(message.html)).toEqual([]);
    expect(message.html).toMatch(/^<!DOCTYPE html>/);
    expect(message.html).toContain('max-width:600px');
    expect(message.html).toContain('background-color:#123456');
    expect(message.html).toContain('Acme &amp; Sons');
    expect(message.html).not.toMatch(/<script|<link|<style|<iframe|<form|url\(/i);
    const images = [...message.html.matchAll(/<img\b[^>]*src="([^"]*)"/g)].map((m) => m[1]);
    expect(images).toEqual(['https://cdn.example.com/acme.png']);
    for (const [, href] of message.html.matchAll(/href="([^"]*)"/g)) {
      expect(href).toMatch(/^(https:\/\/|mailto:)/);
    }
  });

  it('has a plain-text part that reads on its own', () => {
    expect(message.text).not.toMatch(/<[a-z/][^>]*>/i);
    expect(message.text).not.toMatch(/\n{3,}/);
    expect(message.text).not.toMatch(/[ \t]$/m);
    expect(message.text).toContain('https://shop.acme.test');
    expect(message.text.endsWith('\n')).toBe(true);
  });

  it('parses as multipart/alternative in a mail client with both parts', async () => {
    const raw = await new MailComposer({
      from: '"Acme & Sons" <no-reply@emporium.test>',
      to: 'buyer@example.com',
      subject: message.subject,
      text: message.text,
      html: message.html,
    })
      .compile()
      .build();
    const parsed = await simpleParser(raw);
    expect(parsed.subject).toBe(message.subject);
    expect(parsed.text?.trim()).toBe(message.text.trim());
    expect(parsed.html).toBe(message.html);
  });
});

describe.each(ORDER_KINDS)('the default %s about an order', (kind) => {
  const { html, text, subject } = render(kind);

  it('names the order, each line, the totals and the address', () => {
    expect(subject).toContain('#1001');
    for (const part of [html, text]) {
      expect(part).toContain('1001');
      expect(part).toContain('Organic cotton T-shirt');
      expect(part).toContain('Blue / M');
      expect(part).toContain('Canvas tote bag');
      expect(part).toContain('€24.00');
      expect(part).toContain('€66.50'); // subtotal
      expect(part).toContain('−€6.65'); // discount
      expect(part).toContain('WELCOME10');
      expect(part).toContain('Standard shipping');
      expect(part).toContain('€4.90');
      expect(part).toContain('Sales tax 20%');
      expect(part).toContain('€12.95');
      expect(part).toContain('€77.70'); // total
      expect(part).toContain('12 Market Street');
      expect(part).toContain('62701 Springfield, IL');
    }
  });

  it("keeps the quantity and price apart from the line before them on a phone's narrow screen", () => {
    // Each line's "2 × €24.00" cell and its total's cell beside it.
    const lines = [
      ...html.matchAll(
        /<td align="center" style="([^"]*)">\d+ × [^<]*<\/td>\s*<td align="right" style="([^"]*)">/g,
      ),
    ];
    expect(lines).toHaveLength(2);
    for (const style of lines.flatMap(([, quantity, total]) => [quantity, total])) {
      expect(style).toMatch(/;padding-left:12px;white-space:nowrap$/);
      expect(style).not.toMatch(/[^;]padding-left/);
    }
  });

  it('links to the order: the buyer in the shop on its domain, the merchant in the dashboard', () => {
    const link =
      kind === 'new_order'
        ? 'https://emporium.test/admin/orders/01900000-0000-7000-8000-000000000001'
        : 'https://shop.acme.test/account/orders/1001';
    expect(html).toContain(`href="${link}"`);
    expect(text).toContain(link);
  });
});

describe('kind-specific content', () => {
  it('shipping: carrier, tracking number and tracking link', () => {
    const { html, text } = render('shipping_confirmation');
    for (const part of [html, text]) {
      expect(part).toContain('UPS');
      expect(part).toContain('1Z999AA10123456784');
      expect(part).toContain('https://www.ups.com/track?tracknum=1Z999AA10123456784');
    }
  });

  it('refund: the amount refunded and what remains paid', () => {
    const { text, subject } = render('refund_issued');
    expect(subject).toBe('Refund of €24.00 for order #1001 — Acme & Sons');
    expect(text).toContain('We have refunded €24.00');
    expect(text).toContain('Refunded so far: €24.00. Still paid: €53.70.');
  });

  it('back in stock: the product, its price and its link in the shop', () => {
    const { html, text } = render('back_in_stock');
    expect(text).toContain('Organic cotton T-shirt (Blue / M) is available again. It is back, at €24.00');
    expect(html).toContain('href="https://shop.acme.test/products/organic-cotton-t-shirt"');
  });

  it('low stock: product, variant and SKU, quantity left, threshold, dashboard link', () => {
    const { text, subject } = render('low_stock');
    expect(subject).toBe('Low stock: Organic cotton T-shirt (Blue / M), 3 left — Acme & Sons');
    expect(text).toContain('has 3 left in stock, at or below its threshold of 5.');
    expect(text).toContain('SKU: TEE-BLU-M');
    expect(text).toContain('https://emporium.test/admin/products/01900000-0000-7000-8000-000000000002');
  });

  it('a store without a logo shows its name instead of an image', () => {
    const bare = { ...store, logo: null, custom_domain: null } as StoreRow;
    const { html } = renderMessage(
      DEFAULT_TEMPLATES.order_confirmation,
      previewVariables('order_confirmation', bare, storeLinksOf(bare, 'https://emporium.test'), undefined),
    );
    expect(html).not.toContain('<img');
    expect(html).toContain('https://emporium.test/shop/acme/account/orders/1001');
  });
});
