import { describe, expect, it } from 'vitest';
import {
  customerName,
  formatDate,
  formatDateTime,
  formatPercent,
  humanise,
  prettyJson,
  setDisplayTimeZone,
  taxLabel,
} from './format';

describe('humanise', () => {
  it.each([
    ['partially_paid', 'Partially paid'],
    ['on_hold', 'On hold'],
    ['order.created', 'Order created'],
    ['product.out_of_stock', 'Product out of stock'],
    ['paid', 'Paid'],
    ['', ''],
  ])('%j → %j', (value, text) => {
    expect(humanise(value)).toBe(text);
  });
});

describe('customerName', () => {
  it.each([
    [{ first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' }, 'Ada Lovelace'],
    [{ first_name: 'Ada', last_name: null, email: 'ada@example.com' }, 'Ada'],
    [{ first_name: null, last_name: 'Lovelace', email: 'ada@example.com' }, 'Lovelace'],
    [{ first_name: null, last_name: null, email: 'ada@example.com' }, 'ada@example.com'],
    [{ first_name: '', last_name: '', email: 'ada@example.com' }, 'ada@example.com'],
  ])('%j → %j', (customer, name) => {
    expect(customerName(customer)).toBe(name);
  });
});

describe('formatPercent', () => {
  it.each([
    [0.125, '+12.5%'],
    [1, '+100.0%'],
    [-0.5, '-50.0%'],
    [0, '0.0%'],
    [0.00049, '+0.0%'],
    [2.3456, '+234.6%'],
  ])('%d → %s', (fraction, text) => {
    expect(formatPercent(fraction)).toBe(text);
  });
});

describe('dates', () => {
  it.each([null, undefined, ''])('an absent date (%j) shows as a dash', (value) => {
    expect(formatDate(value)).toBe('—');
    expect(formatDateTime(value)).toBe('—');
  });

  it('text that is not a date is shown as it is', () => {
    expect(formatDate('soon')).toBe('soon');
    expect(formatDateTime('soon')).toBe('soon');
  });

  it('a calendar day (YYYY-MM-DD) is that day wherever the browser is', () => {
    expect(formatDate('2026-11-22')).toBe(
      new Date(2026, 10, 22).toLocaleDateString(undefined, { dateStyle: 'medium' }),
    );
  });

  it("signed in, a moment is shown in the store's zone and names it; a calendar day stays that day", () => {
    setDisplayTimeZone('Asia/Tokyo');
    try {
      const shown = formatDateTime('2026-11-22T20:15:30.123Z');
      expect(shown).toContain('23');
      expect(shown).toMatch(/05:15|5:15/);
      expect(shown).toMatch(/GMT\+9|JST/);
      expect(formatDate('2026-11-22T20:15:30.123Z')).toBe(
        new Date(2026, 10, 23).toLocaleDateString(undefined, { dateStyle: 'medium' }),
      );
      expect(formatDate('2026-11-22')).toBe(
        new Date(2026, 10, 22).toLocaleDateString(undefined, { dateStyle: 'medium' }),
      );
    } finally {
      setDisplayTimeZone(undefined);
    }
  });

  it('a timestamp is shown in local time before a store is known', () => {
    const iso = '2026-11-22T10:15:30.123Z';
    expect(formatDateTime(iso)).toBe(
      new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }),
    );
  });
});

describe('taxLabel', () => {
  it('names the tax and its rate, "incl." when the prices contain it', () => {
    expect(taxLabel('VAT', '19')).toBe('VAT 19 %');
    expect(taxLabel('Sales tax', '7.25')).toBe('Sales tax 7.25 %');
    expect(taxLabel('VAT', 19, true)).toBe('incl. VAT 19 %');
  });
});

describe('prettyJson', () => {
  it.each([
    ['{"a":1,"b":[true,null]}', '{\n  "a": 1,\n  "b": [\n    true,\n    null\n  ]\n}'],
    ['"text"', '"text"'],
    ['42', '42'],
  ])('indents %s', (text, pretty) => {
    expect(prettyJson(text)).toBe(pretty);
  });

  it.each(['', '{', 'not json', "{'a':1}"])('%j is not JSON', (text) => {
    expect(prettyJson(text)).toBeUndefined();
  });
});
