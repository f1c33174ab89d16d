import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { cartForStorefront } from '../../modules/carts/index.js';
import type { AppError } from '../../platform/http/errors.js';
import { type CartView, cartOfRequest, setCartCookie } from '../cart-session.js';
import { pricedByAddress } from '../checkout-shipping.js';
import { formOf, intField, isNotFound, isShopperError, reasonOf, textField } from '../forms.js';
import { type CartNotice, CartPage, type CartPageProps } from '../pages/cart.js';
import { sendPage } from '../render.js';
import { type ShopContext, shopHref } from '../shop-context.js';
import type { ShopDeps } from '../shop-deps.js';

const MAX_QUANTITY = 10_000;

/** The product a refused line names, as the shopper knows it (name, variant) and where it is. */
async function productLabel(deps: ShopDeps, shop: ShopContext, productId: string, variantId?: string) {
  const [summary] = await deps.products.storefrontSummaries(shop.store, [productId]);
  if (!summary) return undefined;
  let name = summary.name;
  if (variantId) {
    const page = await deps.products.storefrontProduct(shop.store, summary.slug).catch(() => undefined);
    const variant = page?.variants.find((v) => v.id === variantId);
    if (variant) name = `${name} (${variant.title})`;
  }
  return { name, href: shopHref(shop, `/products/${encodeURIComponent(summary.slug)}`) };
}

/** Why a quantity was refused, in the shopper's words. */
function stockReason(error: AppError, inCart: number): string {
  const left = /(\d+) left/.exec(error.message)?.[1];
  if (left === undefined) return 'there is not enough in stock.';
  if (left === '0') return 'it is out of stock.';
  const already = inCart > 0 ? ` and you already have ${inCart} in your cart` : '';
  return `only ${left} left in stock${already}.`;
}

function addReason(error: AppError, inCart: number): string {
  if (error.code === 'insufficient_stock') return stockReason(error, inCart);
  const reason = reasonOf(error);
  if (reason.includes('choose one')) return 'choose its options (such as size or colour) first.';
  if (reason.includes('not a variant')) return 'that option is not available.';
  if (reason.includes('unavailable product')) return 'it is not for sale.';
  return `${reason}.`;
}

/**
 * The cart: GET /cart, and its forms, each answered with a redirect back to it (post/redirect/get)
 * or, when refused, the cart drawn again with the reason and the refusal's 4xx status.
 */
export async function cartRoutes(app: FastifyInstance, deps: ShopDeps) {
  const secure = deps.secureCookies;

  const backToCart = (reply: FastifyReply, shop: ShopContext) => reply.redirect(shopHref(shop, '/cart'), 303);

  async function renderCart(
    reply: FastifyReply,
    view: CartView | undefined,
    props: Omit<CartPageProps, 'cart' | 'byAddress'>,
    status = 200,
  ) {
    const cart = view ? cartForStorefront(view) : null;
    const byAddress = cart ? await pricedByAddress(deps, props.shop.store.id, cart) : false;
    return sendPage(reply, <CartPage {...props} cart={cart} byAddress={byAddress} />, {
      status,
      cache: 'private',
    });
  }

  const cartOf = (request: FastifyRequest, reply: FastifyReply) => cartOfRequest(request, reply, deps);

  app.get('/cart', async (request, reply) => {
    const { shop, view } = await cartOf(request, reply);
    return renderCart(reply, view, { shop });
  });

  // The product page's form: productId, variantId (products with options), quantity.
  app.post('/cart/items', async (request, reply) => {
    const { shop, shopper, view } = await cartOf(request, reply);
    const form = formOf(request);
    const productId = textField(form, 'productId');
    const variantId = textField(form, 'variantId') || undefined;
    const quantity = form.quantity === undefined ? 1 : intField(form, 'quantity', 1, MAX_QUANTITY);
    if (!productId || quantity === undefined) {
      const notice: CartNotice = { kind: 'error', text: 'Choose a product and a quantity of at least 1.' };
      return renderCart(reply, view, { shop, notice }, 400);
    }
    const line = { productId, variantId, quantity };
    try {
      const next = view
        ? await deps.carts.addItem(shopper.ctx, view.cart.id, line, shopper.customerId)
        : await deps.carts.create(shopper.ctx, { items: [line] }, shopper.customerId);
      setCartCookie(reply, shop, next.cart.id, secure);
      return backToCart(reply, shop);
    } catch (error) {
      if (!isShopperError(error)) throw error;
      const inCart =
        view?.lines.find(
          ({ item }) => item.product_id === productId && item.variant_id === (variantId ?? null),
        )?.item.quantity ?? 0;
      const product = await productLabel(deps, shop, productId, variantId);
      const notice: CartNotice = {
        kind: 'error',
        text: `Could not add ${product ? `“${product.name}”` : 'this product'} to your cart: ${addReason(error, inCart)}`,
        link: product ? { href: product.href, label: `Back to ${product.name}` } : undefined,
      };
      return renderCart(reply, view, { shop, notice }, error.statusCode);
    }
  });

  app.post('/cart/items/:itemId', async (request, reply) => {
    const { shop, shopper, view } = await cartOf(request, reply);
    if (!view) return backToCart(reply, shop);
    const { itemId } = request.params as { itemId: string };
    const quantity = intField(formOf(request), 'quantity', 0, MAX_QUANTITY);
    if (quantity === undefined) {
      const notice: CartNotice = {
        kind: 'error',
        text: 'Enter a quantity from 0 to 10,000 (0 removes the item).',
      };
      return renderCart(reply, view, { shop, notice }, 400);
    }
    try {
      await deps.carts.setItemQuantity(shopper.ctx, view.cart.id, itemId, quantity, shopper.customerId);
      return backToCart(reply, shop);
    } catch (error) {
      if (isNotFound(error)) return backToCart(reply, shop);
      if (!isShopperError(error)) throw error;
      const line = cartForStorefront(view).items.find((i) => i.id === itemId);
      const label = line
        ? `“${line.name}${line.variantTitle ? ` (${line.variantTitle})` : ''}”`
        : 'this item';
      const notice: CartNotice = {
        kind: 'error',
        text: `Could not change the quantity of ${label}: ${error.code === 'insufficient_stock' ? stockReason(error, 0) : `${reasonOf(error)}.`}`,
      };
      return renderCart(reply, view, { shop, notice }, error.statusCode);
    }
  });

  app.post('/cart/items/:itemId/remove', async (request, reply) => {
    const { shop, shopper, view } = await cartOf(request, reply);
    const { itemId } = request.params as { itemId: string };
    if (view)
      await deps.carts.removeItem(shopper.ctx, view.cart.id, itemId, shopper.customerId).catch((error) => {
        if (!isNotFound(error)) throw error;
      });
    return backToCart(reply, shop);
  });

  app.post('/cart/coupon', async (request, reply) => {
    const { shop, shopper, view } = await cartOf(request, reply);
    if (!view) return backToCart(reply, shop);
    const code = textField(formOf(request), 'code').slice(0, 100);
    if (!code) return renderCart(reply, view, { shop, coupon: { code, error: 'Enter a coupon code.' } }, 400);
    try {
      await deps.carts.update(shopper.ctx, view.cart.id, { couponCode: code }, shopper.customerId);
      return backToCart(reply, shop);
    } catch (error) {
      if (!isShopperError(error)) throw error;
      const coupon = { code, error: `This code cannot be used: ${reasonOf(error)}.` };
      return renderCart(reply, view, { shop, coupon }, error.statusCode);
    }
  });

  app.post('/cart/coupon/remove', async (request, reply) => {
    const { shop, shopper, view } = await cartOf(request, reply);
    if (view) await deps.carts.update(shopper.ctx, view.cart.id, { couponCode: null }, shopper.customerId);
    return backToCart(reply, shop);
  });
}
