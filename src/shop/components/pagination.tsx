import { type ShopContext, shopHref } from '../shop-context.js';

/** The page numbers shown: the first, the last, and two either side of the current one. */
export function pageWindow(current: number, total: number): (number | 'gap')[] {
  const shown = new Set([1, total]);
  for (let n = current - 2; n <= current + 2; n++) if (n >= 1 && n <= total) shown.add(n);
  const sorted = [...shown].sort((a, b) => a - b);
  return sorted.flatMap((n, i) => (i > 0 && n - (sorted[i - 1] as number) > 1 ? ['gap' as const, n] : [n]));
}

/** Page links of a list: previous / numbers / next, with rel="prev"/"next" and the current page marked. */
export function Pagination({
  shop,
  page,
  totalPages,
  pathOf,
}: {
  shop: ShopContext;
  page: number;
  totalPages: number;
  pathOf: (page: number) => string;
}) {
  if (totalPages <= 1) return null;
  return (
    <nav className="pagination" aria-label="Pages">
      {page > 1 ? (
        <a className="pagination__step" rel="prev" href={shopHref(shop, pathOf(page - 1))}>
          <span aria-hidden="true">← </span>Previous<span className="visually-hidden"> page</span>
        </a>
      ) : null}
      <ol>
        {pageWindow(page, totalPages).map((n, i) =>
          n === 'gap' ? (
            // biome-ignore lint/suspicious/noArrayIndexKey: gaps have no identity of their own
            <li key={`gap-${i}`} className="pagination__gap" aria-hidden="true">
              …
            </li>
          ) : (
            <li key={n}>
              <a
                href={shopHref(shop, pathOf(n))}
                aria-current={n === page ? 'page' : undefined}
                aria-label={`Page ${n}`}
              >
                {n}
              </a>
            </li>
          ),
        )}
      </ol>
      {page < totalPages ? (
        <a className="pagination__step" rel="next" href={shopHref(shop, pathOf(page + 1))}>
          Next<span className="visually-hidden"> page</span>
          <span aria-hidden="true"> →</span>
        </a>
      ) : null}
    </nav>
  );
}
