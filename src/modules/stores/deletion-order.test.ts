import { describe, expect, it } from 'vitest';
import { deletionOrder } from './deletion-order.js';

const fk = (child: string, parent: string, columns = ['store_id', `${parent}_id`]) => ({
  child,
  parent,
  columns,
});

describe('deletionOrder', () => {
  it('puts every table before the tables it references, ties by name', () => {
    const order = deletionOrder(
      ['customers', 'order_line_items', 'orders', 'products', 'carts'],
      [
        fk('order_line_items', 'orders'),
        fk('orders', 'customers'),
        fk('carts', 'orders'),
        fk('carts', 'customers'),
        fk('orders', 'stores'),
      ],
    );
    expect(order.map((step) => step.table)).toEqual([
      'carts',
      'order_line_items',
      'orders',
      'customers',
      'products',
    ]);
  });

  it('clears self-references (not store_id) instead of ordering by them', () => {
    const order = deletionOrder(
      ['categories', 'product_categories'],
      [
        fk('categories', 'categories', ['store_id', 'parent_id']),
        fk('categories', 'categories', ['parent_id']),
        fk('product_categories', 'categories'),
      ],
    );
    expect(order).toEqual([
      { table: 'product_categories', selfReferences: [] },
      { table: 'categories', selfReferences: ['parent_id'] },
    ]);
  });

  it('empties tables without a foreign key among them last (the summaries triggers keep)', () => {
    const order = deletionOrder(
      ['product_counts', 'products', 'product_media', 'analytics_daily'],
      [fk('product_media', 'products'), fk('products', 'stores')],
    );
    expect(order.map((step) => step.table)).toEqual([
      'product_media',
      'products',
      'analytics_daily',
      'product_counts',
    ]);
  });

  it('refuses a cycle between tables, naming them', () => {
    expect(() => deletionOrder(['a', 'b', 'c'], [fk('a', 'b'), fk('b', 'a')])).toThrow(/cycle among a, b/);
  });
});
