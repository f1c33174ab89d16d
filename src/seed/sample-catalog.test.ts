import { describe, expect, it } from 'vitest';
import { DEMO_PRODUCTS } from '../demo.js';
import { SAMPLE_CATEGORIES, sampleProduct } from './sample-catalog.js';

const catalogue = (count: number) => Array.from({ length: count }, (_, n) => sampleProduct(n));
const duplicates = (names: string[]) => names.filter((name, i) => names.indexOf(name) !== i);

describe('sampleProduct', () => {
  it("gives the demo store's products distinct names, from every category", () => {
    const products = catalogue(DEMO_PRODUCTS);
    expect(duplicates(products.map((p) => p.name))).toEqual([]);
    const leaves = SAMPLE_CATEGORIES.flatMap((c) => (c.children.length > 0 ? c.children : [c.name]));
    expect(new Set(products.map((p) => p.category))).toEqual(new Set(leaves));
  });

  it('never repeats a name in a large catalogue', () => {
    const names = catalogue(2000).map((p) => p.name);
    expect(duplicates(names)).toEqual([]);
  });

  it('is deterministic', () => {
    expect(catalogue(50)).toEqual(catalogue(50));
  });
});
