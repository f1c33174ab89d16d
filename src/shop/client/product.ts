// The product page's option picker and gallery. The page works without it: the variant <select> is a
// field of the add-to-cart form, and the server refuses a sold-out variant. This shows the chosen
// variant's price, compare-at price, stock, SKU and picture at once, and keeps a sold-out one from
// being added.

/** As pages/product.tsx writes it. */
interface VariantView {
  id: string;
  price: string;
  compare: string | null;
  inStock: boolean;
  sku: string | null;
  image: string | null;
}

function variantsOnPage(): Map<string, VariantView> {
  const element = document.getElementById('product-variants');
  if (!element?.textContent) return new Map();
  const list = JSON.parse(element.textContent) as VariantView[];
  return new Map(list.map((v) => [v.id, v]));
}

function setUpPicker() {
  const select = document.querySelector<HTMLSelectElement>('select[name="variantId"]');
  const variants = variantsOnPage();
  if (!select || variants.size === 0) return;
  const price = document.querySelector<HTMLElement>('[data-price]');
  const compare = document.querySelector<HTMLElement>('[data-compare]');
  const compareAmount = document.querySelector<HTMLElement>('[data-compare-amount]');
  const stock = document.querySelector<HTMLElement>('[data-stock]');
  const button = document.querySelector<HTMLButtonElement>('[data-add-to-cart]');
  const sku = document.querySelector<HTMLElement>('[data-sku]');
  const image = document.querySelector<HTMLImageElement>('[data-main-image]');

  const show = (variant: VariantView) => {
    if (price) price.textContent = variant.price;
    if (compare && compareAmount) {
      compare.hidden = variant.compare === null;
      compareAmount.textContent = variant.compare ?? '';
    }
    if (stock) {
      stock.textContent = variant.inStock ? 'In stock' : 'Sold out';
      stock.className = `stock ${variant.inStock ? 'stock--in' : 'stock--out'}`;
    }
    if (button) {
      button.disabled = !variant.inStock;
      button.textContent = variant.inStock ? 'Add to cart' : 'Sold out';
    }
    if (sku?.parentElement) {
      sku.textContent = variant.sku ?? '';
      sku.parentElement.hidden = variant.sku === null;
    }
    if (image && variant.image) showImage(image, variant.image);
  };
  select.addEventListener('change', () => {
    const variant = variants.get(select.value);
    if (variant) show(variant);
  });
  // The browser may restore another choice than the one rendered (back/forward cache, form restore).
  const restored = variants.get(select.value);
  if (restored) show(restored);
}

/** Shows `url` as the main picture and marks its thumbnail as the current one. */
function showImage(main: HTMLImageElement, url: string) {
  const thumbs = [...document.querySelectorAll<HTMLAnchorElement>('[data-thumb]')];
  const absolute = new URL(url, document.baseURI).href;
  main.src = absolute;
  for (const thumb of thumbs) {
    if (thumb.href === absolute) thumb.setAttribute('aria-current', 'true');
    else thumb.removeAttribute('aria-current');
  }
}

function setUpGallery() {
  const main = document.querySelector<HTMLImageElement>('[data-main-image]');
  if (!main) return;
  for (const thumb of document.querySelectorAll<HTMLAnchorElement>('[data-thumb]')) {
    thumb.addEventListener('click', (event) => {
      event.preventDefault();
      showImage(main, thumb.href);
    });
  }
}

setUpPicker();
setUpGallery();
