/** Colours of a store that has not chosen its own (the storefront config and the shop use them). */
export const DEFAULT_STORE_COLORS = {
  primary: '#1f2937',
  secondary: '#4b5563',
  accent: '#2563eb',
  background: '#ffffff',
  text: '#111827',
};

/** A store's colours with the defaults filling what it has not set. */
export function storeColors(colors: Partial<typeof DEFAULT_STORE_COLORS> | null | undefined) {
  return { ...DEFAULT_STORE_COLORS, ...colors };
}
