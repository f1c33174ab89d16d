/** "Café Crème 250 g" → "cafe-creme-250-g": lowercase ASCII words joined by hyphens. */
export function slugify(text: string): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80)
    .replace(/-+$/, '');
  return slug || 'item';
}

export const SLUG_PATTERN = '^[a-z0-9]+(?:-[a-z0-9]+)*$';
