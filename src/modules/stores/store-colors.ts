/**
 * The storefront colours a store can choose, and the one set drawn wherever it has not chosen: the
 * shop's CSS, the storefront config, the dashboard's form and preview (told through the settings'
 * `default_colors`). Nothing else defines a default, so a colour left unset looks the same everywhere.
 */
export const STORE_COLOR_NAMES = ['primary', 'secondary', 'accent', 'background', 'text'] as const;
export type StoreColorName = (typeof STORE_COLOR_NAMES)[number];
export type StoreColors = Record<StoreColorName, string>;

export const DEFAULT_STORE_COLORS: Readonly<StoreColors> = Object.freeze({
  primary: '#1f2937',
  secondary: '#4b5563',
  accent: '#2563eb',
  background: '#ffffff',
  text: '#111827',
});

// Writes accept #rrggbb only; a value stored before that check may be anything, and is then not drawn.
const CSS_HEX = /^#(?:[0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$/i;

/** A store's colours with the defaults filling what it has not set (or set to something not a colour). */
export function storeColors(colors: Partial<Record<string, string>> | null | undefined): StoreColors {
  const pick = (name: StoreColorName) => {
    const value = colors?.[name];
    return value !== undefined && CSS_HEX.test(value) ? value : DEFAULT_STORE_COLORS[name];
  };
  return {
    primary: pick('primary'),
    secondary: pick('secondary'),
    accent: pick('accent'),
    background: pick('background'),
    text: pick('text'),
  };
}

/** The stored colours after a change: a colour given is set, `null` removes it (back to the default). */
export function changedStoreColors(
  stored: Record<string, string>,
  change: Partial<Record<StoreColorName, string | null>>,
): Record<string, string> {
  const next: Record<string, string> = { ...stored };
  for (const [name, value] of Object.entries(change)) {
    if (value === null) delete next[name];
    else if (value !== undefined) next[name] = value;
  }
  return next;
}
