import type { ReactNode } from 'react';
import { type ShopContext, shopHref, shopUrl } from '../shop-context.js';

export interface PageMeta {
  /** The page's own title; the store's name is appended. */
  title: string;
  description: string;
  /** The shop path this page is canonical at (`/products/red-shirt`); omitted on pages not to index. */
  canonicalPath?: string;
  /** Pages search engines should skip (cart, checkout, account, 404). */
  noindex?: boolean;
  image?: string | null;
  ogType?: 'website' | 'product';
  /** JSON-LD objects, written as `application/ld+json` (data, never executed). */
  jsonLd?: object[];
  /** Client entries (src/shop/client) this page loads besides the shared one. */
  islands?: string[];
}

const HEX = /^#[0-9a-f]{3,8}$/i;

/** The store's colours as CSS variables; anything that is not a hex colour is left to the stylesheet. */
function themeCss(colors: ShopContext['store']['colors']): string {
  const vars = Object.entries(colors)
    .filter(([, value]) => HEX.test(value))
    .map(([name, value]) => `--shop-${name}:${value}`)
    .join(';');
  return `:root{${vars}}`;
}

/** JSON for a <script> element: `<` escaped, so no value can close the element. */
function scriptJson(value: object): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

/** The document every page of the shop is drawn in: head (SEO, theme, assets), header, footer. */
export function Frame({ shop, meta, children }: { shop: ShopContext; meta: PageMeta; children: ReactNode }) {
  const { store } = shop;
  const title = `${meta.title} | ${store.name}`;
  const canonical = meta.canonicalPath === undefined ? undefined : shopUrl(shop, meta.canonicalPath);
  const entries = ['shop', ...(meta.islands ?? [])].flatMap((name) => shop.assets.entry(name) ?? []);
  const styles = [...new Set(entries.flatMap((e) => e.styles))];
  const preload = [...new Set(entries.flatMap((e) => e.preload))];
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{title}</title>
        <meta name="description" content={meta.description} />
        {meta.noindex ? <meta name="robots" content="noindex" /> : null}
        {canonical ? <link rel="canonical" href={canonical} /> : null}
        <meta property="og:site_name" content={store.name} />
        <meta property="og:title" content={meta.title} />
        <meta property="og:description" content={meta.description} />
        <meta property="og:type" content={meta.ogType ?? 'website'} />
        {canonical ? <meta property="og:url" content={canonical} /> : null}
        {meta.image ? <meta property="og:image" content={meta.image} /> : null}
        <meta name="twitter:card" content={meta.image ? 'summary_large_image' : 'summary'} />
        <meta name="theme-color" content={store.colors.primary} />
        <link rel="icon" href={shopHref(shop, '/favicon.ico')} />
        {styles.map((href) => (
          <link key={href} rel="stylesheet" href={href} />
        ))}
        {/* biome-ignore lint/security/noDangerouslySetInnerHtml: hex colours only (themeCss) */}
        <style dangerouslySetInnerHTML={{ __html: themeCss(store.colors) }} />
        {preload.map((href) => (
          <link key={href} rel="modulepreload" href={href} />
        ))}
        {entries.map((e) => (
          <script key={e.script} type="module" src={e.script} />
        ))}
        {(meta.jsonLd ?? []).map((data, i) => (
          // biome-ignore lint/security/noDangerouslySetInnerHtml: JSON with `<` escaped (scriptJson)
          // biome-ignore lint/suspicious/noArrayIndexKey: a fixed list per page
          <script key={i} type="application/ld+json" dangerouslySetInnerHTML={{ __html: scriptJson(data) }} />
        ))}
      </head>
      <body>
        <a className="skip-link" href="#main">
          Skip to content
        </a>
        <header className="shop-header">
          <div className="shop-header__inner">
            <a className="shop-brand" href={shopHref(shop, '/')}>
              {store.logo ? <img src={store.logo} alt="" width={40} height={40} /> : null}
              <span>{store.name}</span>
            </a>
            {/* biome-ignore lint/a11y/useSemanticElements: <search> is not in React's element types yet */}
            <form className="shop-search" role="search" method="get" action={shopHref(shop, '/products')}>
              <label className="visually-hidden" htmlFor="shop-search-q">
                Search products
              </label>
              <input id="shop-search-q" type="search" name="q" placeholder="Search products" />
              <button type="submit">Search</button>
            </form>
            <nav className="shop-nav" aria-label="Shop">
              <a href={shopHref(shop, '/products')}>Products</a>
              <a href={shopHref(shop, '/account')}>Account</a>
              <a href={shopHref(shop, '/cart')}>Cart</a>
            </nav>
          </div>
        </header>
        <main id="main" className="shop-main">
          {children}
        </main>
        <footer className="shop-footer">
          <p>
            © {store.name} · <a href={shopHref(shop, '/products')}>All products</a>
          </p>
          <p className="shop-footer__powered">Powered by Emporium</p>
        </footer>
      </body>
    </html>
  );
}
