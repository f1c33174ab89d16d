import { Frame } from '../components/frame.js';
import { NotifyMeForm, type NotifyMeState } from '../components/notify-me-form.js';
import { formatMoney } from '../money.js';
import { type ShopContext, shopHref, shopUrl } from '../shop-context.js';

/** The storefront's product page data (products.storefrontProduct). */
export interface ProductPageData {
  product: {
    id: string;
    name: string;
    slug: string;
    description: string;
    price: string;
    comparePrice: string | null;
    sku: string | null;
    inStock: boolean;
    options: { name: string; values: string[] }[];
  };
  variants: {
    id: string;
    title: string;
    sku: string | null;
    price: string;
    comparePrice: string | null;
    inStock: boolean;
    options: Record<string, string>;
  }[];
  images: { id: string; url: string; alt: string | null; isPrimary: boolean }[];
}

/** What the option picker (client/product.ts) swaps in when the variant changes. */
export interface VariantView {
  id: string;
  price: string;
  compare: string | null;
  inStock: boolean;
  sku: string | null;
  /** The picture to show for it: see variantImage. */
  image: string | null;
}

const words = (text: string) =>
  text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);

/**
 * The picture of a variant. Variants have no image of their own in the catalogue, so a picture is a
 * variant's when its alt text names one of the variant's option values as whole words ("Red" in
 * "Red mug, side"; docs/decisions.md); the first such picture wins, else the product's main one.
 */
function variantImage(
  images: ProductPageData['images'],
  variant: ProductPageData['variants'][number],
  main: ProductPageData['images'][number] | undefined,
) {
  const values = Object.values(variant.options).map(words);
  const named = images.find((image) => {
    const alt = words(image.alt ?? '').join(' ');
    return values.some((value) => value.length > 0 && ` ${alt} `.includes(` ${value.join(' ')} `));
  });
  return (named ?? main)?.url ?? null;
}

const showCompare = (price: string, compare: string | null) =>
  compare !== null && Number(compare) > Number(price) ? compare : null;

/** A URL as given when absolute, else on the shop's origin (search engines need absolute ones). */
const absolute = (shop: ShopContext, url: string) =>
  /^https?:\/\//i.test(url) ? url : `${shop.origin}${url}`;

/** The description as plain text: paragraphs at blank lines, line breaks kept; never parsed as HTML. */
function Description({ text }: { text: string }) {
  const paragraphs = text
    .split(/\r?\n\s*\r?\n/)
    .map((p) => p.trim())
    .filter(Boolean);
  return (
    <div className="product__description">
      {paragraphs.map((p, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: paragraphs of one fixed text
        <p key={i}>{p.split(/\r?\n/).flatMap((line, j) => (j === 0 ? [line] : [<br key={j} />, line]))}</p>
      ))}
    </div>
  );
}

function jsonLd(shop: ShopContext, data: ProductPageData, url: string) {
  const { product, variants } = data;
  const currency = shop.store.currency;
  const availability = (inStock: boolean) => `https://schema.org/${inStock ? 'InStock' : 'OutOfStock'}`;
  const offer = (price: string, inStock: boolean, sku: string | null, name?: string) => ({
    '@type': 'Offer',
    ...(name ? { name } : {}),
    ...(sku ? { sku } : {}),
    price,
    priceCurrency: currency,
    availability: availability(inStock),
    url,
  });
  const prices = variants.map((v) => Number(v.price));
  const offers =
    variants.length > 1
      ? {
          '@type': 'AggregateOffer',
          priceCurrency: currency,
          lowPrice: variants[prices.indexOf(Math.min(...prices))]?.price,
          highPrice: variants[prices.indexOf(Math.max(...prices))]?.price,
          offerCount: variants.length,
          availability: availability(variants.some((v) => v.inStock)),
          offers: variants.map((v) => offer(v.price, v.inStock, v.sku, v.title)),
        }
      : variants.length === 1 && variants[0]
        ? offer(variants[0].price, variants[0].inStock, variants[0].sku ?? product.sku)
        : offer(product.price, product.inStock, product.sku);
  return {
    '@context': 'https://schema.org',
    '@type': 'Product',
    name: product.name,
    ...(product.description ? { description: product.description.slice(0, 5000) } : {}),
    ...(data.images.length ? { image: data.images.map((i) => absolute(shop, i.url)) } : {}),
    ...(product.sku ? { sku: product.sku } : {}),
    url,
    offers,
  };
}

/** Text for the meta description: the description's start, or what and how much. */
function summary(shop: ShopContext, data: ProductPageData): string {
  const text = data.product.description.replace(/\s+/g, ' ').trim();
  if (text) return text.length > 160 ? `${text.slice(0, 157).trimEnd()}…` : text;
  return `${data.product.name} at ${shop.store.name}: ${formatMoney(data.product.price, shop.store.currency)}.`;
}

function Gallery({ data, shown }: { data: ProductPageData; shown: string | null }) {
  const { name } = data.product;
  const main =
    data.images.find((i) => i.url === shown) ?? data.images.find((i) => i.isPrimary) ?? data.images[0];
  if (!main) return <div className="product__gallery product__gallery--empty" aria-hidden="true" />;
  return (
    <div className="product__gallery">
      <img className="product__image" data-main-image="" src={main.url} alt={name} width={800} height={800} />
      {data.images.length > 1 ? (
        <ul className="product__thumbs" aria-label="More pictures">
          {data.images.map((image, i) => (
            <li key={image.id}>
              <a href={image.url} data-thumb="" aria-current={image === main ? 'true' : undefined}>
                <img
                  src={image.url}
                  alt={`${name}, view ${i + 1} of ${data.images.length}`}
                  width={96}
                  height={96}
                  loading="lazy"
                />
              </a>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/**
 * GET /products/:slug: pictures, price, stock, the variant picker, add to cart and the wishlist; when
 * the product or a variant is sold out, the "Email me when it's back" form (`notify`: that form
 * refused, shown again with its reason).
 */
export function ProductPage({
  shop,
  data,
  notify,
}: {
  shop: ShopContext;
  data: ProductPageData;
  notify?: NotifyMeState;
}) {
  const { product, variants } = data;
  const currency = shop.store.currency;
  const path = `/products/${encodeURIComponent(product.slug)}`;
  const url = shopUrl(shop, path);
  const image = data.images.find((i) => i.isPrimary) ?? data.images[0];
  const views: VariantView[] = variants.map((v) => ({
    id: v.id,
    price: formatMoney(v.price, currency),
    compare: ((c) => (c === null ? null : formatMoney(c, currency)))(showCompare(v.price, v.comparePrice)),
    inStock: v.inStock,
    sku: v.sku ?? product.sku,
    image: variantImage(data.images, v, image),
  }));
  // The variant shown first is the one the lists priced (ListedForShop in the catalogue): the
  // cheapest in stock, else the cheapest, the first of equals; so the card's price is the price here.
  const opening = variants.reduce<(typeof variants)[number] | undefined>(
    (best, v) =>
      !best ||
      (v.inStock && !best.inStock) ||
      (v.inStock === best.inStock && Number(v.price) < Number(best.price))
        ? v
        : best,
    undefined,
  );
  const selected = views.find((v) => v.id === opening?.id);
  const price = selected?.price ?? formatMoney(product.price, currency);
  const productCompare = showCompare(product.price, product.comparePrice);
  const compare = selected ? selected.compare : productCompare && formatMoney(productCompare, currency);
  const inStock = selected ? selected.inStock : product.inStock;
  const sku = selected ? selected.sku : product.sku;
  const optionLabel = product.options.map((o) => o.name).join(' / ') || 'Option';
  // Sold out: tracked and none left, of the product or of a variant (inStock says both).
  const soldOutVariants = variants.filter((v) => !v.inStock).map((v) => ({ id: v.id, title: v.title }));
  const offerNotifyMe = variants.length > 0 ? soldOutVariants.length > 0 : !product.inStock;
  return (
    <Frame
      shop={shop}
      meta={{
        title: product.name,
        description: summary(shop, data),
        canonicalPath: path,
        ogType: 'product',
        image: image ? absolute(shop, image.url) : shop.store.logo,
        jsonLd: [jsonLd(shop, data, url)],
        islands: ['product'],
      }}
    >
      <nav className="breadcrumbs" aria-label="Breadcrumb">
        <ol>
          <li>
            <a href={shopHref(shop, '/')}>Home</a>
          </li>
          <li>
            <a href={shopHref(shop, '/products')}>Products</a>
          </li>
          <li aria-current="page">{product.name}</li>
        </ol>
      </nav>
      <article className="product">
        <Gallery data={data} shown={selected?.image ?? null} />
        <div className="product__info">
          <h1>{product.name}</h1>
          <div className="product__status" aria-live="polite">
            <p className="price product__price">
              <span data-price="">{price}</span>
              <s data-compare="" hidden={compare === null}>
                <span className="visually-hidden">Was </span>
                <span data-compare-amount="">{compare}</span>
              </s>
            </p>
            <p className={`stock ${inStock ? 'stock--in' : 'stock--out'}`} data-stock="">
              {inStock ? 'In stock' : 'Sold out'}
            </p>
          </div>
          <form className="add-to-cart" method="post" action={shopHref(shop, '/cart/items')}>
            <input type="hidden" name="productId" value={product.id} />
            {views.length > 0 ? (
              <div className="field">
                <label htmlFor="product-variant">{optionLabel}</label>
                <select id="product-variant" name="variantId" defaultValue={selected?.id}>
                  {variants.map((v, i) => (
                    <option key={v.id} value={v.id}>
                      {`${v.title} — ${views[i]?.price}${v.inStock ? '' : ' — Sold out'}`}
                    </option>
                  ))}
                </select>
              </div>
            ) : null}
            <div className="add-to-cart__row">
              <div className="field add-to-cart__quantity">
                <label htmlFor="product-quantity">Quantity</label>
                <input
                  id="product-quantity"
                  type="number"
                  name="quantity"
                  min={1}
                  max={999}
                  defaultValue={1}
                  inputMode="numeric"
                  required
                />
              </div>
              <button type="submit" data-add-to-cart="" disabled={!inStock}>
                {inStock ? 'Add to cart' : 'Sold out'}
              </button>
            </div>
          </form>
          {offerNotifyMe ? (
            <NotifyMeForm
              shop={shop}
              productSlug={product.slug}
              soldOut={soldOutVariants}
              preferred={selected?.id}
              state={notify}
            />
          ) : null}
          <form className="wishlist-form" method="post" action={shopHref(shop, '/account/wishlist')}>
            <input type="hidden" name="productId" value={product.id} />
            <button type="submit" className="button--secondary">
              Save to wishlist
            </button>
          </form>
          <p className="muted product__sku" hidden={!sku}>
            SKU <span data-sku="">{sku}</span>
          </p>
          <Description text={product.description} />
        </div>
      </article>
      {views.length > 0 ? (
        <script
          type="application/json"
          id="product-variants"
          // biome-ignore lint/security/noDangerouslySetInnerHtml: JSON with `<` escaped, never executed
          dangerouslySetInnerHTML={{ __html: JSON.stringify(views).replace(/</g, '\\u003c') }}
        />
      ) : null}
    </Frame>
  );
}
