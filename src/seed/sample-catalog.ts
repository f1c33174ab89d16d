/** Plausible catalogue data: categories, product names built from them, sizes and colours. */
export const SAMPLE_CATEGORIES = [
  { name: 'Apparel', children: ['T-Shirts', 'Hoodies', 'Jackets'] },
  { name: 'Home', children: ['Kitchen', 'Decor'] },
  { name: 'Outdoor', children: ['Camping', 'Cycling'] },
  { name: 'Stationery', children: [] },
];

const ADJECTIVES = [
  'Classic',
  'Organic',
  'Everyday',
  'Vintage',
  'Premium',
  'Recycled',
  'Lightweight',
  'Heritage',
  'Urban',
  'Alpine',
];
const NOUNS: Record<string, string[]> = {
  'T-Shirts': ['Crew Tee', 'V-Neck Tee', 'Pocket Tee'],
  Hoodies: ['Pullover Hoodie', 'Zip Hoodie'],
  Jackets: ['Rain Jacket', 'Denim Jacket', 'Down Jacket'],
  Kitchen: ['Chef Knife', 'Cast Iron Pan', 'Coffee Grinder', 'Cutting Board'],
  Decor: ['Linen Cushion', 'Ceramic Vase', 'Wool Throw'],
  Camping: ['Tent', 'Sleeping Bag', 'Camp Stove', 'Headlamp'],
  Cycling: ['Bike Light', 'Saddle Bag', 'Cycling Cap'],
  Stationery: ['Dot Notebook', 'Fountain Pen', 'Desk Planner'],
};
export const SIZES = ['S', 'M', 'L', 'XL'];
export const COLOURS = ['Black', 'Navy', 'Sand'];
const SIZED = new Set(['T-Shirts', 'Hoodies', 'Jackets']);
/** A typical shipping weight per category, in grams (a tent weighs more than a tee). */
const WEIGHTS: Record<string, number> = {
  'T-Shirts': 180,
  Hoodies: 550,
  Jackets: 800,
  Kitchen: 1200,
  Decor: 900,
  Camping: 1500,
  Cycling: 250,
  Stationery: 300,
};

export interface SampleProduct {
  name: string;
  category: string;
  priceMinor: number;
  sized: boolean;
  hue: number;
  /** For shipping rates by weight (contract §12). */
  weightGrams: number;
}

/**
 * Every (category, noun) pair once, dealt round-robin over the categories (each category's first
 * noun, then each one's second, …), so a small catalogue already covers every category.
 */
const PRODUCT_KINDS = (() => {
  const lists = Object.entries(NOUNS);
  const longest = Math.max(...lists.map(([, nouns]) => nouns.length));
  return Array.from({ length: longest }, (_, i) =>
    lists.flatMap(([category, nouns]) => (i < nouns.length ? [{ category, noun: nouns[i] as string }] : [])),
  ).flat();
})();

/**
 * The n-th sample product: deterministic, so two runs produce comparable catalogues. Names never
 * repeat: n walks every kind with one adjective, then every kind with the next adjective, and once
 * the adjectives are used up, the same again as "No. 2", "No. 3", ….
 */
export function sampleProduct(n: number): SampleProduct {
  const { category, noun } = PRODUCT_KINDS[n % PRODUCT_KINDS.length] as { category: string; noun: string };
  const adjective = ADJECTIVES[Math.floor(n / PRODUCT_KINDS.length) % ADJECTIVES.length] as string;
  const priceMinor = 500 + ((n * 7919) % 19_500);
  const edition = Math.floor(n / (PRODUCT_KINDS.length * ADJECTIVES.length));
  const name = edition > 0 ? `${adjective} ${noun} No. ${edition + 1}` : `${adjective} ${noun}`;
  return {
    name,
    category,
    priceMinor: priceMinor - (priceMinor % 100) + 99,
    sized: SIZED.has(category),
    hue: (n * 47) % 360,
    weightGrams: (WEIGHTS[category] ?? 500) + ((n * 37) % 10) * 10,
  };
}
