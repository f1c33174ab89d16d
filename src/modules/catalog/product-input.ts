import type { Static } from 'typebox';
import { invalidRequest } from '../../platform/http/errors.js';
import { parseMoney } from '../../platform/http/money-input.js';
import { toDecimalString } from '../../platform/money.js';
import type { ProductCreateBody } from './catalog.schemas.js';
import type { ProductOption } from './catalog.tables.js';
import type { VariantRow } from './products.repository.js';

export type ProductInput = Static<typeof ProductCreateBody>;
type VariantInput = NonNullable<ProductInput['variants']>[number];
type ImageInput = NonNullable<ProductInput['images']>[number];

/** Option names unique (case-insensitive), as Shopify requires. */
export function checkOptions(options: ProductOption[]): void {
  const names = options.map((o) => o.name.trim().toLowerCase());
  if (new Set(names).size !== names.length)
    throw invalidRequest('option names must be unique', [
      { field: 'options', message: 'duplicate option name' },
    ]);
}

export interface ParsedVariant {
  id?: string;
  title: string;
  sku: string | null;
  price: number;
  comparePrice: number | null;
  inventory: number | undefined;
  /** null: the product's weight. */
  weightGrams: number | null;
  options: Record<string, string>;
}

/**
 * Every variant names exactly one value of every option, from that option's values, and no two
 * variants share a combination. A title defaults to the values joined by " / ".
 */
export function parseVariants(
  variants: VariantInput[],
  options: ProductOption[],
  productPrice: number,
  decimals: number,
): ParsedVariant[] {
  if (variants.length > 0 && options.length === 0) {
    throw invalidRequest('variants need product options', [
      { field: 'options', message: 'required with variants' },
    ]);
  }
  const seen = new Set<string>();
  return variants.map((v, i) => {
    const field = `variants.${i}`;
    const keys = Object.keys(v.options);
    for (const option of options) {
      const value = v.options[option.name];
      if (value === undefined)
        throw invalidRequest(`${field}.options lacks ${option.name}`, [
          { field: `${field}.options`, message: `missing ${option.name}` },
        ]);
      if (!option.values.includes(value)) {
        throw invalidRequest(`${field}.options.${option.name}: "${value}" is not one of its values`, [
          { field: `${field}.options.${option.name}`, message: 'unknown value' },
        ]);
      }
    }
    const unknown = keys.filter((k) => !options.some((o) => o.name === k));
    if (unknown.length)
      throw invalidRequest(`${field}.options: unknown option ${unknown.join(', ')}`, [
        { field: `${field}.options`, message: 'unknown option' },
      ]);
    const combination = options.map((o) => v.options[o.name]).join('\u0000');
    if (seen.has(combination))
      throw invalidRequest(`${field}: duplicate option combination`, [
        { field, message: 'duplicate combination' },
      ]);
    seen.add(combination);
    return {
      id: v.id,
      title: v.title ?? options.map((o) => v.options[o.name]).join(' / '),
      sku: v.sku ?? null,
      price: v.price === undefined ? productPrice : parseMoney(v.price, `${field}.price`, decimals),
      comparePrice:
        v.compare_price == null ? null : parseMoney(v.compare_price, `${field}.compare_price`, decimals),
      inventory: v.inventory,
      weightGrams: v.weight_grams ?? null,
      options: v.options,
    };
  });
}

/**
 * On update, a variant given with its id is updated: the fields it leaves out keep their values
 * (price, compare_price, sku, weight_grams; the title too while its options stay the same).
 */
export function keepOmittedVariantFields(
  variants: VariantInput[],
  existing: VariantRow[],
  decimals: number,
): VariantInput[] {
  const byId = new Map(existing.map((v) => [v.id, v]));
  return variants.map((v) => {
    const old = v.id ? byId.get(v.id) : undefined;
    if (!old) return v;
    const given = Object.entries(v.options);
    const sameOptions =
      given.length === Object.keys(old.options).length &&
      given.every(([k, value]) => old.options[k] === value);
    return {
      ...(sameOptions ? { title: old.title } : {}),
      sku: old.sku,
      weight_grams: old.weight_grams,
      price: toDecimalString(old.price, decimals),
      compare_price: old.compare_price === null ? null : toDecimalString(old.compare_price, decimals),
      ...v,
    };
  });
}

export interface ParsedMedia {
  mediaType: 'image' | 'video';
  url: string;
  alt: string | null;
  isPrimary: boolean;
  position: number;
}

/** Absolute http(s) URLs; at most one primary image, the first image when none is marked. */
export function parseMedia(items: ImageInput[]): ParsedMedia[] {
  items.forEach((item, i) => {
    let url: URL;
    try {
      url = new URL(item.url);
    } catch {
      throw invalidRequest(`images.${i}.url is not a valid URL`, [
        { field: `images.${i}.url`, message: 'invalid URL' },
      ]);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw invalidRequest(`images.${i}.url must be http or https`, [
        { field: `images.${i}.url`, message: 'must be http(s)' },
      ]);
    }
  });
  const images = items.filter((m) => m.media_type !== 'video');
  if (images.filter((m) => m.is_primary).length > 1) {
    throw invalidRequest('at most one image can be primary', [
      { field: 'images', message: 'several primary images' },
    ]);
  }
  const firstImage = images[0];
  const primary = images.find((m) => m.is_primary) ?? firstImage;
  return items.map((m, position) => ({
    mediaType: m.media_type === 'video' ? 'video' : 'image',
    url: m.url,
    alt: m.alt ?? null,
    isPrimary: m === primary,
    position,
  }));
}
