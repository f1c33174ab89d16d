import { invalidRequest } from '../platform/http/errors.js';

export const SORTS = ['newest', 'price_asc', 'price_desc', 'name'] as const;
export type Sort = (typeof SORTS)[number];
export const SORT_LABELS: Record<Sort, string> = {
  newest: 'Newest',
  price_asc: 'Price: low to high',
  price_desc: 'Price: high to low',
  name: 'Name: A to Z',
};
export const PER_PAGE = 24;
/** The storefront API's bounds on a search and a category slug. */
const MAX_Q = 200;
const MAX_SLUG = 100;
const MAX_PAGE = 1_000_000;

/** What a product list page shows: every other query parameter is ignored (and left out of its URLs). */
export interface ListQuery {
  category?: string;
  q?: string;
  sort: Sort;
  page: number;
}

/** A repeated parameter (`?q=a&q=b`) counts by its first value. */
function first(value: unknown): string | undefined {
  if (Array.isArray(value)) return first(value[0]);
  return typeof value === 'string' ? value : undefined;
}

/**
 * The list query of a request, forgiving where a shopper's typing is concerned: a search is trimmed
 * and cut to the storefront's 200 characters, an unknown sort is the default. A page that is not a
 * whole number from 1 is refused (400): such links come from nowhere a shopper clicks.
 */
export function parseListQuery(raw: unknown): ListQuery {
  const query = (raw ?? {}) as Record<string, unknown>;
  const q = first(query.q)?.replace(/\s+/g, ' ').trim().slice(0, MAX_Q);
  const category = first(query.category)?.trim().slice(0, MAX_SLUG);
  const sort = first(query.sort);
  const pageText = first(query.page)?.trim() ?? '';
  let page = 1;
  if (pageText !== '') {
    page = /^\d{1,7}$/.test(pageText) ? Number(pageText) : 0;
    if (page < 1 || page > MAX_PAGE)
      throw invalidRequest(`There is no page "${pageText.slice(0, 20)}": pages are numbered from 1.`);
  }
  return {
    ...(category ? { category } : {}),
    ...(q ? { q } : {}),
    sort: SORTS.includes(sort as Sort) ? (sort as Sort) : 'newest',
    page,
  };
}

/** The shop path of a list page: its parameters in one order, defaults left out (one URL per page). */
export function listPath(query: ListQuery, change: Partial<ListQuery> = {}): string {
  const merged = { ...query, ...change };
  const params = new URLSearchParams();
  if (merged.category) params.set('category', merged.category);
  if (merged.q) params.set('q', merged.q);
  if (merged.sort !== 'newest') params.set('sort', merged.sort);
  if (merged.page > 1) params.set('page', String(merged.page));
  const search = params.toString();
  return search ? `/products?${search}` : '/products';
}
