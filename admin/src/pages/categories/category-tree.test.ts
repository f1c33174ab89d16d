import { describe, expect, it } from 'vitest';
import type { Category } from '../../api/types';
import { treeOrder } from './category-tree';

const category = (id: string, parent: string | null, position = 0, name = id): Category => ({
  id,
  name,
  slug: id,
  description: '',
  parent_id: parent,
  position,
  product_count: 0,
  created_at: '2026-11-22T10:15:30.123Z',
  updated_at: '2026-11-22T10:15:30.123Z',
});

const order = (categories: Category[]) =>
  treeOrder(categories).map((e) => `${'-'.repeat(e.depth)}${e.category.id}`);

describe('treeOrder', () => {
  it.each([
    { name: 'nothing', categories: [], tree: [] },
    {
      name: 'each parent followed by its children',
      categories: [
        category('shirts', 'clothes'),
        category('clothes', null),
        category('mugs', null, 1),
        category('tees', 'shirts'),
      ],
      tree: ['clothes', '-shirts', '--tees', 'mugs'],
    },
    {
      name: 'siblings by position, then name',
      categories: [
        category('b', null, 1),
        category('c', null, 0, 'Zebra'),
        category('a', null, 1),
        category('d', null, 0, 'Ant'),
      ],
      tree: ['d', 'c', 'a', 'b'],
    },
    {
      name: 'a parent that is not in the list: shown at the top level',
      categories: [category('orphan', 'deleted'), category('root', null)],
      tree: ['orphan', 'root'],
    },
  ])('$name', ({ categories, tree }) => {
    expect(order(categories)).toEqual(tree);
  });

  it('stops ten levels down', () => {
    const chain = Array.from({ length: 14 }, (_, i) => category(`c${i}`, i === 0 ? null : `c${i - 1}`));
    const tree = treeOrder(chain);
    expect(tree.map((e) => e.depth)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('a cycle without a root never loops', () => {
    expect(order([category('a', 'b'), category('b', 'a'), category('root', null)])).toEqual(['root']);
  });
});
