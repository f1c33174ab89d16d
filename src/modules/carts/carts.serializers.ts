import { currencyDecimals, toDecimalNumber } from '../../platform/money.js';
import { regionalForStorefront } from '../orders/index.js';
import type { PricedCartView } from './carts.pricing.js';
import { stockOf } from './carts.pricing.js';
import { CART_LIFETIME_MS } from './carts.repository.js';

const lineKey = (productId: string, variantId: string | null) => `${productId}/${variantId ?? ''}`;

/** A cart for the storefront (camelCase; order amounts as numbers in the store's currency). */
export function cartForStorefront(view: PricedCartView) {
  const { cart, priced } = view;
  const money = (minor: number) => toDecimalNumber(minor, currencyDecimals(view.currency));
  const pricedLines = new Map((priced?.lines ?? []).map((l) => [lineKey(l.productId, l.variantId), l]));
  const items = view.lines.flatMap(({ item, facts }) => {
    const line = pricedLines.get(lineKey(item.product_id, item.variant_id));
    if (!line) return [];
    const stock = stockOf(facts, item.variant_id);
    return [
      {
        id: item.id,
        productId: item.product_id,
        variantId: item.variant_id,
        name: line.name,
        variantTitle: line.variantTitle,
        sku: line.sku,
        image: facts.image,
        quantity: item.quantity,
        price: money(line.price),
        total: money(line.price * item.quantity),
        inStock: stock === null || stock >= item.quantity,
      },
    ];
  });
  const quote = priced?.quote ?? { subtotal: 0, discount: 0, shipping: 0, tax: 0, total: 0 };
  const updatedAt = new Date(cart.updated_at);
  return {
    id: cart.id,
    currency: view.currency,
    items,
    itemCount: items.reduce((sum, i) => sum + i.quantity, 0),
    subtotal: money(quote.subtotal),
    discountAmount: money(quote.discount),
    shippingAmount: money(quote.shipping),
    taxAmount: money(quote.tax),
    total: money(quote.total),
    couponCode: view.couponCode,
    ...(priced
      ? regionalForStorefront(priced.regional, money)
      : { shippingOptions: [], shippingMethod: null, taxLines: [], taxesIncluded: view.taxesIncluded }),
    email: cart.email,
    shippingAddress: cart.shipping_address,
    customerId: cart.customer_id,
    updatedAt: updatedAt.toISOString(),
    expiresAt: new Date(updatedAt.getTime() + CART_LIFETIME_MS).toISOString(),
  };
}

export type StorefrontCart = ReturnType<typeof cartForStorefront>;
