import { DEFAULT_STORE_COLORS } from '../modules/stores/index.js';
import { escapeXml } from './routes/seo.routes.js';
import type { ShopStore } from './shop-context.js';

/** `#rrggbb` → its relative luminance (WCAG), 0 (black) to 1 (white). */
function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/**
 * The icon of a store without a logo: its initial on a rounded square of its primary colour, in
 * white or near-black, whichever reads better on it. SVG: a few hundred bytes, sharp at every size.
 */
export function defaultIconSvg(store: Pick<ShopStore, 'name' | 'colors'>): string {
  // Settings store #rrggbb (validated on write); anything else is an older value: the default.
  const fill = /^#[0-9a-f]{6}$/i.test(store.colors.primary)
    ? store.colors.primary
    : DEFAULT_STORE_COLORS.primary;
  const ink = luminance(fill) > 0.4 ? '#111827' : '#ffffff';
  const initial = ([...store.name.trim()][0] ?? '•').toUpperCase();
  return (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" width="64" height="64">' +
    `<rect width="64" height="64" rx="14" fill="${escapeXml(fill)}"/>` +
    `<text x="32" y="33" text-anchor="middle" dominant-baseline="central" fill="${ink}" ` +
    'font-family="system-ui,-apple-system,Segoe UI,Roboto,Helvetica,Arial,sans-serif" ' +
    `font-size="36" font-weight="700">${escapeXml(initial)}</text></svg>`
  );
}
