import { describe, expect, it } from 'vitest';
import type { LineItem, Order } from '../../api/types';
import { type EditLine, editFormOf, linesOf, rowFieldOf, rowTotalsOf } from './edit-preview';

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

describe('editFormOf: the form checked, no amounts computed', () => {
  it('nothing changed: not ready, nothing to send', () => {
    expect(editFormOf(ORDER, edited(ORDER, { a: ' 2 ' }))).toEqual({
      body: {},
      rows: { update_quantity: [], add: [], remove: [] },
      problems: [],
      formProblem: undefined,
      changed: false,
      ready: false,
    });
  });

  it('remembers the row behind each entry of the body', () => {
    const form = editFormOf(ORDER, edited(ORDER, { a: '3', b: 'remove' }, [newLine('1.00', '2', 'n7')]));
    expect(form).toMatchObject({ changed: true, ready: true, problems: [] });
    expect(form.rows).toEqual({ update_quantity: ['a'], add: ['n7'], remove: ['b'] });
  });

  it.each([
    [
      { a: '0' },
      [],
      { row: 'a', field: 'quantity', message: 'A whole number of at least 1 (remove the line instead)' },
    ],
    [
      { a: '1.5' },
      [],
      { row: 'a', field: 'quantity', message: 'A whole number of at least 1 (remove the line instead)' },
    ],
    [
      { a: '' },
      [],
      { row: 'a', field: 'quantity', message: 'A whole number of at least 1 (remove the line instead)' },
    ],
    [{}, [newLine('19.99', '0')], { row: 'n1', field: 'quantity', message: 'A whole number of at least 1' }],
    [{}, [newLine('19.999', '1')], { row: 'n1', field: 'price', message: 'An amount such as 19.99' }],
    [{}, [newLine('-1', '1')], { row: 'n1', field: 'price', message: 'An amount such as 19.99' }],
  ] as const)('%j plus %j: %j on its field, nothing sent for it', (changes, added, problem) => {
    const form = editFormOf(ORDER, edited(ORDER, changes, [...added]));
    expect(form.problems).toEqual([problem]);
    expect(form.ready).toBe(false);
    expect(JSON.stringify(form.body)).not.toContain('NaN');
  });

  it('an order keeps one item at least', () => {
    const form = editFormOf(ORDER, edited(ORDER, { a: 'remove', b: 'remove' }));
    expect([form.formProblem, form.ready]).toEqual(['An order needs at least one item.', false]);
  });

  it('a currency without decimals takes whole prices only', () => {
    const yen = orderOf({ currency: 'JPY', line_items: [item('a', 1200, 1)] });
    expect(editFormOf(yen, edited(yen, {}, [newLine('500', '1')])).ready).toBe(true);
    expect(editFormOf(yen, edited(yen, {}, [newLine('500.5', '1')])).problems).toEqual([
      { row: 'n1', field: 'price', message: 'An amount such as 1999' },
    ]);
  });
});

describe('rowFieldOf: the API error back on its row', () => {
  const rows = { update_quantity: ['a'], add: ['n1', 'n2'], remove: ['b'] };
  it.each([
    ['update_quantity.0.new_quantity', { row: 'a', field: 'quantity' }],
    ['update_quantity.0.item_id', { row: 'a', field: 'item' }],
    ['add.1.price', { row: 'n2', field: 'price' }],
    ['/body/add/0/quantity', { row: 'n1', field: 'quantity' }],
    ['add.0.variant_id', { row: 'n1', field: 'item' }],
    ['remove.0', { row: 'b', field: 'item' }],
    ['add', undefined],
    ['add.5.price', undefined],
    ['body', undefined],
  ] as const)('%s → %j', (field, expected) => {
    expect(rowFieldOf(field, rows)).toEqual(expected);
  });
});

describe("rowTotalsOf: the preview's line totals on the form's rows", () => {
  it('existing lines by id, added ones in the order sent, removed ones absent', () => {
    const totals = rowTotalsOf(
      ORDER,
      { update_quantity: ['a'], add: ['n1', 'n2'], remove: ['b'] },
      {
        line_items: [
          { id: 'a', name: 'Item a', quantity: 3, price: 19.99, total: 59.97 },
          { id: 'x1', name: 'New', quantity: 1, price: 1, total: 1 },
          { id: 'x2', name: 'New', quantity: 2, price: 1, total: 2 },
        ],
      },
    );
    expect([...totals]).toEqual([
      ['a', 59.97],
      ['n1', 1],
      ['n2', 2],
    ]);
  });
});

describe('editFormOf(…).body: only what changed', () => {
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
    expect(editFormOf(ORDER, edited(ORDER, changes, [...added])).body).toEqual(body);
  });
});
