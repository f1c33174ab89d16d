import type { StoreSettings } from '../../api/types';

/** The storefront colours; the server's `default_colors` names them all and holds their defaults. */
export type ColorName = keyof StoreSettings['default_colors'];
export type ColorChange = Partial<Record<ColorName, string | null>>;

export const HEX_COLOR = /^#[0-9a-fA-F]{6}$/;

export function colorNames(defaults: StoreSettings['default_colors']): ColorName[] {
  return Object.keys(defaults) as ColorName[];
}

/** The colour drawn for a field: what the merchant typed when it is a colour, else the store's default. */
export function shownColor(draft: Partial<Record<string, string>>, defaults: Record<ColorName, string>) {
  return (name: ColorName) => {
    const value = draft[name]?.trim() ?? '';
    return HEX_COLOR.test(value) ? value : defaults[name];
  };
}

/**
 * What a save sends for the colours: only those the merchant set or changed, and null for one emptied
 * (back to the default). Nothing when none changed, so a store without colours keeps drawing the
 * defaults rather than having them written as its own.
 */
export function colorChanges(
  saved: Partial<Record<string, string>>,
  draft: Partial<Record<string, string>>,
  names: readonly ColorName[],
): { colors?: ColorChange } {
  const changes: ColorChange = {};
  for (const name of names) {
    const value = draft[name]?.trim() ?? '';
    const before = saved[name];
    if (value === '') {
      if (before !== undefined) changes[name] = null;
    } else if (value.toLowerCase() !== before?.toLowerCase()) changes[name] = value;
  }
  return Object.keys(changes).length ? { colors: changes } : {};
}
