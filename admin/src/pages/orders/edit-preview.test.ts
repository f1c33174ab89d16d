import { describe, expect, it } from 'vitest';
import type { LineItem, Order } from '../../api/types';
import { type EditLine, editBodyOf, linesOf, previewEdit } from './edit-preview';

const item = (id: string, price: number, quantity: number): LineItem => ({
  id,
  product_id: `p-${id}`,
  variant_id: null,
  name: `Item ${id}`,
  variant_title: null,
  sku: null,
  quantity,
  price,
  total: Number((price * quantity).toFixed(2)),
});

/** A paid USD order: 2 × 19.99 + 1 × 5.00, $5.00 off, $4.99 shipping, $3.30 tax. */
function orderOf(overrides: Partial<Order> = {}): Order {
  return {
    id: 'o1',
    order_number: '1001',
    status: 'processing',
    payment_status: 'paid',
    fulfillment_status: 'unfulfilled',
    currency: 'USD',
    subtotal: 44.98,
    discount_amount: 5,
    shipping_amount: 4.99,
    tax_amount: 3.3,
    total: 48.27,
    amount_paid: 48.27,
    amount_refunded: 0,
    balance_due: 0,
    coupon_code: 'FIVE',
    payment_method: 'manual',
    customer: { id: null, email: 'ada@example.com', first_name: null, last_name: null },
    shipping_address: null,
    shipping_method: null,
    tax_lines: [],
    taxes_included: false,
    notes: null,
    line_items: [item('a', 19.99, 2), item('b', 5, 1)],
    fulfillments: [],
    cancel_reason: null,
    cancelled_at: null,
    paid_at: null,
    fulfilled_at: null,
    created_at: '2026-11-22T10:15:30.123Z',
    updated_at: '2026-11-22T10:15:30.123Z',
    ...overrides,
  };
}

const ORDER = orderOf();
/** $10.00 off, no shipping nor tax, nothing paid yet: 44.98 − 10.00 = 34.98. */
const UNSHIPPED = orderOf({
  discount_amount: 10,
  shipping_amount: 0,
  tax_amount: 0,
  total: 34.98,
  amount_paid: 0,
});
const newLine = (price: string, quantity: string, key = 'n1'): EditLine => ({
  kind: 'new',
  key,
  productId: 'p-new',
  variantId: null,
  name: 'New item',
  variantTitle: null,
  price,
  quantity,
});
/** The order's lines with changes applied: a quantity (text as typed) or `remove`, by item id. */
function edited(order: Order, changes: Partial<Record<string, string>>, added: EditLine[] = []): EditLine[] {
  return [
    ...linesOf(order).map((line) => {
      if (line.kind !== 'existing') return line;
      const change = changes[line.itemId];
      if (change === 'remove') return { ...line, remove: true };
      return change === undefined ? line : { ...line, quantity: change };
    }),
    ...added,
  ];
}

describe('linesOf', () => {
  it("turns the order's items into unchanged form rows", () => {
    expect(linesOf(ORDER)).toEqual([
      {
        kind: 'existing',
        itemId: 'a',
        name: 'Item a',
        variantTitle: null,
        price: 19.99,
        quantity: '2',
        remove: false,
      },
      {
        kind: 'existing',
        itemId: 'b',
        name: 'Item b',
        variantTitle: null,
        price: 5,
        quantity: '1',
        remove: false,
      },
    ]);
  });
});

describe('previewEdit: the server arithmetic in minor units', () => {
  it.each([
    {
      name: 'nothing changed: not valid, the totals as they are',
      lines: edited(ORDER, {}),
      expected: {
        valid: false,
        changed: false,
        newSubtotal: 4498,
        newTotal: 4827,
        difference: 0,
        newBalance: 0,
      },
    },
    {
      name: 'a quantity raised: the difference is the added line total',
      lines: edited(ORDER, { a: '3' }),
      expected: {
        valid: true,
        changed: true,
        newSubtotal: 6497,
        newTotal: 6826,
        difference: 1999,
        newBalance: 1999,
      },
    },
    {
      name: 'a line removed: a negative balance (to refund)',
      lines: edited(ORDER, { b: 'remove' }),
      expected: {
        valid: true,
        changed: true,
        newSubtotal: 3998,
        newTotal: 4327,
        difference: -500,
        newBalance: -500,
      },
    },
    {
      name: 'a line added at a typed price',
      lines: edited(ORDER, {}, [newLine('0.10', '3')]),
      expected: {
        valid: true,
        changed: true,
        newSubtotal: 4528,
        newTotal: 4857,
        difference: 30,
        newBalance: 30,
      },
    },
    {
      name: 'the frozen discount can bring the total to 0, never below',
      order: UNSHIPPED,
      lines: edited(UNSHIPPED, { a: 'remove' }),
      expected: {
        valid: true,
        changed: true,
        newSubtotal: 500, // 5.00 − 10.00 would be −5.00
        newTotal: 0,
        difference: -3498,
        newBalance: 0,
      },
    },
    {
      name: 'the same quantity typed again is no change',
      lines: edited(ORDER, { a: ' 2 ' }),
      expected: {
        valid: false,
        changed: false,
        newSubtotal: 4498,
        newTotal: 4827,
        difference: 0,
        newBalance: 0,
      },
    },
  ])('$name', ({ order = ORDER, lines, expected }) => {
    expect(previewEdit(order, lines)).toMatchObject({ ...expected, problems: [] });
  });

  it('keeps the frozen amounts and the old totals in minor units', () => {
    expect(previewEdit(ORDER, edited(ORDER, { a: '1' }))).toEqual({
      valid: true,
      problems: [],
      oldSubtotal: 4498,
      newSubtotal: 2499,
      discount: 500,
      shipping: 499,
      tax: 330,
      oldTotal: 4827,
      newTotal: 2828,
      difference: -1999,
      newBalance: -1999,
      changed: true,
      lineTotals: [1999, 500],
    });
  });

  it('a currency without decimals is counted in whole units', () => {
    const yen = orderOf({
      currency: 'JPY',
      line_items: [item('a', 1200, 1)],
      subtotal: 1200,
      discount_amount: 0,
      shipping_amount: 300,
      tax_amount: 120,
      total: 1620,
      amount_paid: 1620,
    });
    const preview = previewEdit(yen, edited(yen, { a: '2' }, [newLine('500', '1')]));
    expect(preview).toMatchObject({ valid: true, newSubtotal: 2900, newTotal: 3320, difference: 1700 });
    expect(previewEdit(yen, edited(yen, {}, [newLine('500.5', '1')])).problems).toEqual([
      'New item: the price must be an amount such as 1999',
    ]);
  });

  it.each([
    [{ a: '0' }, [], ['Item a: the quantity must be a whole number of at least 1 (remove the line instead)']],
    [
      { a: '1.5' },
      [],
      ['Item a: the quantity must be a whole number of at least 1 (remove the line instead)'],
    ],
    [{ a: '' }, [], ['Item a: the quantity must be a whole number of at least 1 (remove the line instead)']],
    [{}, [newLine('19.99', '0')], ['New item: the quantity must be a whole number of at least 1']],
    [{}, [newLine('19.999', '1')], ['New item: the price must be an amount such as 19.99']],
    [{}, [newLine('-1', '1')], ['New item: the price must be an amount such as 19.99']],
    [{ a: 'remove', b: 'remove' }, [], ['An order needs at least one item.']],
  ] as const)('%j plus %j is refused: %j', (changes, added, problems) => {
    const preview = previewEdit(ORDER, edited(ORDER, changes, [...added]));
    expect(preview.problems).toEqual(problems);
    expect(preview.valid).toBe(false);
  });

  it('a refused line counts 0 in the totals', () => {
    const preview = previewEdit(ORDER, edited(ORDER, { a: 'x' }));
    expect(preview.lineTotals).toEqual([0, 500]);
    expect(preview.newSubtotal).toBe(500);
  });
});

describe('editBodyOf: only what changed', () => {
  it.each([
    { name: 'nothing', changes: {}, added: [], body: {} },
    {
      name: 'a quantity',
      changes: { a: '3' },
      added: [],
      body: { update_quantity: [{ item_id: 'a', new_quantity: 3 }] },
    },
    { name: 'the same quantity', changes: { a: '2' }, added: [], body: {} },
    { name: 'a removal', changes: { b: 'remove' }, added: [], body: { remove: ['b'] } },
    {
      name: 'an added line (price as typed, trimmed; no empty variant)',
      changes: {},
      added: [newLine(' 7.50 ', '2')],
      body: { add: [{ product_id: 'p-new', name: 'New item', quantity: 2, price: '7.50' }] },
    },
    {
      name: 'an added variant',
      changes: {},
      added: [{ ...newLine('7.50', '1'), variantId: 'v1', variantTitle: 'Large' }],
      body: {
        add: [
          {
            product_id: 'p-new',
            variant_id: 'v1',
            name: 'New item',
            variant_title: 'Large',
            quantity: 1,
            price: '7.50',
          },
        ],
      },
    },
    {
      name: 'all three at once',
      changes: { a: '1', b: 'remove' },
      added: [newLine('1', '1')],
      body: {
        update_quantity: [{ item_id: 'a', new_quantity: 1 }],
        add: [{ product_id: 'p-new', name: 'New item', quantity: 1, price: '1' }],
        remove: ['b'],
      },
    },
  ] as const)('$name', ({ changes, added, body }) => {
    expect(editBodyOf(ORDER, edited(ORDER, changes, [...added]))).toEqual(body);
  });
});
