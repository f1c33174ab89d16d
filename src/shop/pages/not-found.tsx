import { Frame } from '../components/frame.js';
import { type ShopContext, shopHref } from '../shop-context.js';

/** A page that does not exist (or a draft product) inside the shop's frame, with a way back. */
export function NotFoundPage({ shop }: { shop: ShopContext }) {
  return (
    <Frame
      shop={shop}
      meta={{ title: 'Page not found', description: 'This page does not exist.', noindex: true }}
    >
      <section className="message-page">
        <h1>Page not found</h1>
        <p>The page you asked for does not exist or is no longer for sale.</p>
        <p>
          <a className="button" href={shopHref(shop, '/products')}>
            Browse all products
          </a>
        </p>
      </section>
    </Frame>
  );
}

/** Any other failure the shopper can act on (a refused form, a server error) inside the frame. */
export function ErrorPage({ shop, status, message }: { shop: ShopContext; status: number; message: string }) {
  const title = status >= 500 ? 'Something went wrong' : 'That did not work';
  return (
    <Frame shop={shop} meta={{ title, description: message, noindex: true }}>
      <section className="message-page">
        <h1>{title}</h1>
        <p>{message}</p>
        <p>
          <a className="button" href={shopHref(shop, '/')}>
            Back to the shop
          </a>
        </p>
      </section>
    </Frame>
  );
}

/**
 * A page without the shop's frame (no store to draw it with), its text escaped by the caller. Its
 * empty icon keeps browsers from asking for a /favicon.ico that no store answers.
 */
function framelessPage(title: string, message: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title><meta name="robots" content="noindex"><link rel="icon" href="data:,"></head><body style="font-family:system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;line-height:1.5"><main><h1>${title}</h1><p>${message}</p></main></body></html>`;
}

/** An unknown or disabled store: no frame to draw it in. */
export const UNKNOWN_STORE_HTML = framelessPage('Shop not found', 'There is no shop at this address.');

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * A store its operator suspended (§14): closed, not missing and not failing, so shoppers know to come
 * back rather than that the address is wrong. Frameless: nothing of the store but its name is shown.
 */
export function storeClosedHtml(storeName: string): string {
  const name = escapeHtml(storeName);
  return framelessPage(`${name} is closed`, `${name} is closed for now. Please come back later.`);
}

/** The store could not be read (the database is away): the shop exists, it cannot answer yet. */
export const SHOP_UNAVAILABLE_HTML = framelessPage(
  'The shop is unavailable',
  'The shop could not answer just now. Please try again in a moment.',
);
