import { describe, expect, it } from 'vitest';
import type { Product } from '../../api/types';
import {
  bodyOf,
  emptyForm,
  formOf,
  generateVariants,
  type OptionRow,
  optionValues,
  type ProductForm,
} from './product-form';

const option = (name: string, values: string): OptionRow => ({ key: name, name, values });

function productOf(overrides: Partial<Product> = {}): Product {
  return {
    id: 'p1',
    name: 'T-shirt',
    slug: 't-shirt',
    description: 'Soft',
    status: 'active',
    price: '19.99',
    compare_price: null,
    sku: 'TS',
    inventory: 7,
    track_inventory: true,
    low_stock_threshold: null,
    weight_grams: 250,
    taxable: true,
    stock_status: 'in_stock',
    category_ids: ['c1'],
    images: [
      { id: 'i2', url: 'https://img.example/2.webp', alt: null, is_primary: false, position: 1 },
      { id: 'i1', url: 'https://img.example/1.webp', alt: 'Front', is_primary: true, position: 0 },
    ],
    media: [{ id: 'm1', url: 'https://video.example/1.mp4', media_type: 'video' }],
    options: [],
    variants: [],
    created_at: '2026-11-22T10:15:30.123Z',
    updated_at: '2026-11-22T10:15:30.123Z',
    ...overrides,
  };
}

describe('optionValues', () => {
  it.each([
    ['S, M, L', ['S', 'M', 'L']],
    [' S ,M,, L ,', ['S', 'M', 'L']],
    ['Red, Red, Blue', ['Red', 'Blue']],
    ['', []],
    [' , ', []],
  ])('%j → %j', (values, list) => {
    expect(optionValues(option('Size', values))).toEqual(list);
  });
});

describe('generateVariants', () => {
  const form = (options: OptionRow[], variants: ProductForm['variants'] = []): ProductForm => ({
    ...emptyForm(),
    price: '19.99',
    options,
    variants,
  });

  it('makes every combination, in option order, at the product price', () => {
    const rows = generateVariants(form([option('Size', 'S, M'), option('Color', 'Red, Blue')]));
    expect(rows.map((r) => [r.title, r.options, r.price, r.inventory])).toEqual([
      ['S / Red', { Size: 'S', Color: 'Red' }, '19.99', '0'],
      ['S / Blue', { Size: 'S', Color: 'Blue' }, '19.99', '0'],
      ['M / Red', { Size: 'M', Color: 'Red' }, '19.99', '0'],
      ['M / Blue', { Size: 'M', Color: 'Blue' }, '19.99', '0'],
    ]);
    expect(new Set(rows.map((r) => r.key)).size).toBe(4);
  });

  it('keeps the rows (and ids) of combinations that already exist', () => {
    const existing = {
      key: 'k-old',
      id: 'v1',
      title: 'Small',
      sku: 'TS-S',
      price: '17.00',
      comparePrice: '',
      inventory: '3',
      weightGrams: '',
      options: { Size: 'S' },
    };
    const rows = generateVariants(form([option('Size', 'S, M')], [existing]));
    expect(rows[0]).toBe(existing);
    expect(rows[1]).toMatchObject({ title: 'M', options: { Size: 'M' } });
    expect(rows[1]?.id).toBeUndefined();
  });

  it('an existing row with other options is not kept', () => {
    const stale = {
      key: 'k',
      title: 'S',
      sku: '',
      price: '19.99',
      comparePrice: '',
      inventory: '0',
      weightGrams: '',
      options: { Size: 'S' },
    };
    const rows = generateVariants(form([option('Size', 'S'), option('Color', 'Red')], [stale]));
    expect(rows).toHaveLength(1);
    expect(rows[0]).not.toBe(stale);
  });

  it.each([
    ['no options', []],
    ['an option without a name', [option(' ', 'S, M')]],
    ['an option without values', [option('Size', ' , ')]],
  ])('%s: no variants', (_, options) => {
    expect(generateVariants(form(options))).toEqual([]);
  });
});

describe('formOf', () => {
  it('shows the images by position, then the videos; nulls as empty text', () => {
    const f = formOf(productOf());
    expect(f.media.map(({ key: _, ...m }) => m)).toEqual([
      { url: 'https://img.example/1.webp', alt: 'Front', primary: true, video: false },
      { url: 'https://img.example/2.webp', alt: '', primary: false, video: false },
      { url: 'https://video.example/1.mp4', alt: '', primary: false, video: true },
    ]);
    expect(f).toMatchObject({
      comparePrice: '',
      sku: 'TS',
      inventory: '7',
      lowStockThreshold: '',
      weightGrams: '250',
      taxable: true,
      downloadImages: false,
    });
  });
});

describe('bodyOf', () => {
  it('a new product: trimmed text, nulls for empty fields, its stock, images, options and variants', () => {
    const body = bodyOf({
      ...emptyForm(),
      name: '  Mug ',
      slug: ' ',
      price: ' 9.50 ',
      inventory: '12',
      lowStockThreshold: '3',
      media: [
        { key: 'a', url: ' https://img.example/m.webp ', alt: ' Mug ', primary: true, video: false },
        { key: 'b', url: '  ', alt: '', primary: false, video: false },
      ],
    });
    expect(body).toEqual({
      name: 'Mug',
      description: '',
      status: 'active',
      price: '9.50',
      compare_price: null,
      sku: null,
      track_inventory: true,
      low_stock_threshold: 3,
      weight_grams: 0,
      taxable: true,
      category_ids: [],
      inventory: 12,
      images: [{ url: 'https://img.example/m.webp', alt: 'Mug', is_primary: true }],
      options: [],
      variants: [],
    });
  });

  it('an unchanged existing product sends neither stock, images, options nor variants', () => {
    const product = productOf();
    const body = bodyOf(formOf(product), product);
    expect(body).toEqual({
      name: 'T-shirt',
      description: 'Soft',
      status: 'active',
      price: '19.99',
      compare_price: null,
      sku: 'TS',
      track_inventory: true,
      low_stock_threshold: null,
      weight_grams: 250,
      taxable: true,
      category_ids: ['c1'],
      slug: 't-shirt',
    });
  });

  it('an existing product sends its images when they changed, or to download them again', () => {
    const product = productOf();
    const reordered = formOf(product);
    reordered.media = [...reordered.media].reverse();
    expect(bodyOf(reordered, product).images).toEqual([
      { url: 'https://video.example/1.mp4', media_type: 'video' },
      { url: 'https://img.example/2.webp', is_primary: false },
      { url: 'https://img.example/1.webp', alt: 'Front', is_primary: true },
    ]);
    const again = { ...formOf(product), downloadImages: true };
    expect(bodyOf(again, product)).toMatchObject({ download_images: true });
    expect(bodyOf(again, product).images).toHaveLength(3);
  });

  it('variants: ids kept, stock only for new ones, the product price when left empty', () => {
    const product = productOf({
      options: [{ name: 'Size', values: ['S'] }],
      variants: [
        {
          id: 'v1',
          title: 'S',
          sku: null,
          price: '19.99',
          compare_price: null,
          inventory: 4,
          weight_grams: null,
          options: { Size: 'S' },
        },
      ],
    });
    const form = formOf(product);
    form.options = [option('Size', 'S, M')];
    form.variants = generateVariants(form).map((v) => (v.id ? v : { ...v, price: ' ', inventory: '5' }));
    const body = bodyOf(form, product);
    expect(body.options).toEqual([{ name: 'Size', values: ['S', 'M'] }]);
    expect(body.variants).toEqual([
      {
        id: 'v1',
        title: 'S',
        sku: null,
        price: '19.99',
        compare_price: null,
        weight_grams: null,
        options: { Size: 'S' },
      },
      {
        title: 'M',
        sku: null,
        price: '19.99',
        compare_price: null,
        inventory: 5,
        weight_grams: null,
        options: { Size: 'M' },
      },
    ]);
    expect(body).not.toHaveProperty('inventory');
  });

  it("weight and tax: grams as numbers, an empty variant weight as null (the product's), text as typed", () => {
    const product = productOf({
      options: [{ name: 'Size', values: ['S', 'M'] }],
      variants: [
        {
          id: 'v1',
          title: 'S',
          sku: null,
          price: '19.99',
          compare_price: null,
          inventory: 1,
          weight_grams: 300,
          options: { Size: 'S' },
        },
        {
          id: 'v2',
          title: 'M',
          sku: null,
          price: '19.99',
          compare_price: null,
          inventory: 1,
          weight_grams: null,
          options: { Size: 'M' },
        },
      ],
    });
    const form = formOf(product);
    expect(form.variants.map((v) => v.weightGrams)).toEqual(['300', '']);
    form.weightGrams = ' 1200 ';
    form.taxable = false;
    form.variants = form.variants.map((v, i) => ({ ...v, weightGrams: i === 0 ? '' : '2.5' }));
    const body = bodyOf(form, product);
    expect(body).toMatchObject({ weight_grams: 1200, taxable: false });
    expect((body.variants as { weight_grams: unknown }[]).map((v) => v.weight_grams)).toEqual([null, '2.5']);
    expect(bodyOf({ ...form, weightGrams: '' }, product).weight_grams).toBe(0);
  });

  it('removing the last option of a product that had some sends the empty lists', () => {
    const product = productOf({
      options: [{ name: 'Size', values: ['S'] }],
      variants: [
        {
          id: 'v1',
          title: 'S',
          sku: null,
          price: '19.99',
          compare_price: null,
          inventory: 4,
          weight_grams: null,
          options: { Size: 'S' },
        },
      ],
    });
    const form = { ...formOf(product), options: [], variants: [] };
    expect(bodyOf(form, product)).toMatchObject({ options: [], variants: [] });
  });
});
