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

export interface SampleProduct {
  name: string;
  category: string;
  priceMinor: number;
  sized: boolean;
  hue: number;
}

/** The n-th sample product: deterministic, so two runs produce comparable catalogues. */
export function sampleProduct(n: number): SampleProduct {
  const categories = Object.keys(NOUNS);
  const category = categories[n % categories.length] as string;
  const nouns = NOUNS[category] as string[];
  const noun = nouns[Math.floor(n / categories.length) % nouns.length] as string;
  const adjective = ADJECTIVES[Math.floor(n / (categories.length * 3)) % ADJECTIVES.length] as string;
  const priceMinor = 500 + ((n * 7919) % 19_500);
  const edition = Math.floor(n / (categories.length * 3 * ADJECTIVES.length));
  const name = edition > 0 ? `${adjective} ${noun} No. ${edition + 1}` : `${adjective} ${noun}`;
  return {
    name,
    category,
    priceMinor: priceMinor - (priceMinor % 100) + 99,
    sized: SIZED.has(category),
    hue: (n * 47) % 360,
  };
}
