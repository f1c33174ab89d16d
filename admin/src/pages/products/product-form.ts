import type { Product } from '../../api/types';

/** The product form's state: text as typed, turned into the API's body on save. */
export interface MediaRow {
  key: string;
  url: string;
  alt: string;
  primary: boolean;
  video: boolean;
}

export interface OptionRow {
  key: string;
  name: string;
  /** Comma-separated values as typed. */
  values: string;
}

export interface VariantRow {
  key: string;
  id?: string;
  title: string;
  sku: string;
  price: string;
  comparePrice: string;
  inventory: string;
  /** Grams as typed; empty: the product's weight. */
  weightGrams: string;
  options: Record<string, string>;
}

export interface ProductForm {
  name: string;
  slug: string;
  description: string;
  status: Product['status'];
  price: string;
  comparePrice: string;
  sku: string;
  inventory: string;
  trackInventory: boolean;
  lowStockThreshold: string;
  weightGrams: string;
  taxable: boolean;
  categoryIds: string[];
  media: MediaRow[];
  downloadImages: boolean;
  options: OptionRow[];
  variants: VariantRow[];
}

let counter = 0;
export const newKey = () => `k${++counter}`;

export function emptyForm(): ProductForm {
  return {
    name: '',
    slug: '',
    description: '',
    status: 'active',
    price: '',
    comparePrice: '',
    sku: '',
    inventory: '0',
    trackInventory: true,
    lowStockThreshold: '',
    weightGrams: '0',
    taxable: true,
    categoryIds: [],
    media: [],
    downloadImages: false,
    options: [],
    variants: [],
  };
}

export function formOf(p: Product): ProductForm {
  return {
    name: p.name,
    slug: p.slug,
    description: p.description,
    status: p.status,
    price: p.price,
    comparePrice: p.compare_price ?? '',
    sku: p.sku ?? '',
    inventory: String(p.inventory),
    trackInventory: p.track_inventory,
    lowStockThreshold: p.low_stock_threshold === null ? '' : String(p.low_stock_threshold),
    weightGrams: String(p.weight_grams),
    taxable: p.taxable,
    categoryIds: p.category_ids,
    media: [
      ...[...p.images]
        .sort((a, b) => a.position - b.position)
        .map((i) => ({ key: newKey(), url: i.url, alt: i.alt ?? '', primary: i.is_primary, video: false })),
      ...p.media.map((m) => ({ key: newKey(), url: m.url, alt: '', primary: false, video: true })),
    ],
    downloadImages: false,
    options: p.options.map((o) => ({ key: newKey(), name: o.name, values: o.values.join(', ') })),
    variants: p.variants.map((v) => ({
      key: newKey(),
      id: v.id,
      title: v.title,
      sku: v.sku ?? '',
      price: v.price,
      comparePrice: v.compare_price ?? '',
      inventory: String(v.inventory),
      weightGrams: v.weight_grams === null ? '' : String(v.weight_grams),
      options: v.options,
    })),
  };
}

export function optionValues(row: OptionRow): string[] {
  return [
    ...new Set(
      row.values
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean),
    ),
  ];
}

/** Every combination of the options' values, keeping the rows (and ids) that already exist. */
export function generateVariants(form: ProductForm): VariantRow[] {
  const options = form.options.filter((o) => o.name.trim() && optionValues(o).length);
  if (options.length === 0) return [];
  let combos: Record<string, string>[] = [{}];
  for (const option of options) {
    const next: Record<string, string>[] = [];
    for (const combo of combos)
      for (const value of optionValues(option)) next.push({ ...combo, [option.name.trim()]: value });
    combos = next;
  }
  return combos.map((combo) => {
    const existing = form.variants.find(
      (v) =>
        Object.keys(v.options).length === Object.keys(combo).length &&
        Object.entries(combo).every(([k, val]) => v.options[k] === val),
    );
    return (
      existing ?? {
        key: newKey(),
        title: Object.values(combo).join(' / '),
        sku: '',
        price: form.price,
        comparePrice: '',
        inventory: '0',
        weightGrams: '',
        options: combo,
      }
    );
  });
}

const text = (v: string) => (v.trim() ? v.trim() : null);
/** A whole number as typed; anything else is sent as typed, for the API to name the field. */
const grams = (v: string) => (/^\d+$/.test(v.trim()) ? Number(v.trim()) : v.trim());

/** The create or update body (an update sends the images only when they changed). */
export function bodyOf(form: ProductForm, original?: Product): Record<string, unknown> {
  const body: Record<string, unknown> = {
    name: form.name.trim(),
    description: form.description,
    status: form.status,
    price: form.price.trim(),
    compare_price: text(form.comparePrice),
    sku: text(form.sku),
    track_inventory: form.trackInventory,
    low_stock_threshold: form.lowStockThreshold.trim() === '' ? null : Number(form.lowStockThreshold),
    weight_grams: form.weightGrams.trim() === '' ? 0 : grams(form.weightGrams),
    taxable: form.taxable,
    category_ids: form.categoryIds,
  };
  if (form.slug.trim()) body.slug = form.slug.trim();
  const hasVariants = form.variants.length > 0;
  // Stock of an existing product changes through inventory adjustments (kept in the history).
  if (!original && !hasVariants) body.inventory = Number(form.inventory || '0');

  const media = form.media
    .filter((m) => m.url.trim())
    .map((m) => ({
      url: m.url.trim(),
      ...(m.alt.trim() ? { alt: m.alt.trim() } : {}),
      ...(m.video ? { media_type: 'video' } : { is_primary: m.primary }),
    }));
  const originalMedia = original
    ? formOf(original)
        .media.map((m) => `${m.url}|${m.alt}|${m.primary}|${m.video}`)
        .join('\n')
    : '';
  const currentMedia = form.media
    .filter((m) => m.url.trim())
    .map((m) => `${m.url.trim()}|${m.alt.trim()}|${m.primary}|${m.video}`)
    .join('\n');
  if (!original || form.downloadImages || originalMedia !== currentMedia) {
    body.images = media;
    if (form.downloadImages) body.download_images = true;
  }

  const options = form.options
    .filter((o) => o.name.trim())
    .map((o) => ({ name: o.name.trim(), values: optionValues(o) }));
  if (!original || options.length || original.options.length) body.options = options;
  if (!original || hasVariants || original.variants.length) {
    body.variants = form.variants.map((v) => ({
      ...(v.id ? { id: v.id } : {}),
      ...(v.title.trim() ? { title: v.title.trim() } : {}),
      sku: text(v.sku),
      price: v.price.trim() || form.price.trim(),
      compare_price: text(v.comparePrice),
      ...(v.id ? {} : { inventory: Number(v.inventory || '0') }),
      weight_grams: v.weightGrams.trim() === '' ? null : grams(v.weightGrams),
      options: v.options,
    }));
  }
  return body;
}
