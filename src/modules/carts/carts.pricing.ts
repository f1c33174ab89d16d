import type { Executor } from '../../platform/db/database.js';
import { readTogether } from '../../platform/db/read-together.js';
import { AppError, invalidRequest } from '../../platform/http/errors.js';
import type { CartProductFacts, ProductsService } from '../catalog/index.js';
import type { CustomersService } from '../customers/index.js';
import { type PricingDeps, priceCart, STOREFRONT_FIELDS } from '../orders/index.js';
import type { CartItemRow, CartRow } from './carts.repository.js';
import * as repo from './carts.repository.js';

export interface CartPricingDeps extends PricingDeps {
  products: ProductsService;
  customers: CustomersService;
}

type Priced = Awaited<ReturnType<typeof priceCart>>;

/** A cart as it is now: its lines with their catalogue facts, priced by checkout's own pricing. */
export interface PricedCartView {
  cart: CartRow;
  /** The lines that can still be bought, in the order they were added. */
  lines: { item: CartItemRow; facts: CartProductFacts }[];
  priced: Priced | null;
  currency: string;
  /** The store's prices contain the tax (§12). */
  taxesIncluded: boolean;
  /** The coupon as it applies now (a stored code that stopped applying is not). */
  couponCode: string | null;
}

/** Stock of the line's product or variant; null when not tracked. */
export function stockOf(facts: CartProductFacts, variantId: string | null): number | null {
  if (!facts.trackInventory) return null;
  return variantId ? (facts.variants.get(variantId) ?? 0) : facts.inventory;
}

/**
 * Whether a stored line can still be bought: the product is active and the variant choice still
 * fits it. A line that cannot (archived since, variant removed) is left out of the cart's view and
 * totals rather than making every read fail; it comes back if the product does.
 */
export function isAvailable(facts: CartProductFacts | undefined, variantId: string | null) {
  if (facts?.status !== 'active') return false;
  return variantId ? facts.variants.has(variantId) : facts.variants.size === 0;
}

/** Whether `error` is the discounts module refusing the coupon (400 naming couponCode). */
export function isCouponRefusal(error: unknown): boolean {
  return (
    error instanceof AppError &&
    error.code === 'invalid_request' &&
    (error.details ?? []).some((d) => d.field === STOREFRONT_FIELDS.coupon)
  );
}

/**
 * Prices lines through `priceCart`, the one pricing path of quotes, checkouts and orders. With
 * `strictCoupon`, a coupon that does not apply is the discounts module's 400 naming why; without,
 * the cart is priced as if it had none (a coupon that expired or fell below its minimum since).
 */
export async function priceLines(
  deps: CartPricingDeps,
  executor: Executor,
  storeId: string,
  input: {
    items: { product_id: string; variant_id: string | null; quantity: number }[];
    couponCode: string | null;
    customerId: string | null;
    strictCoupon: boolean;
    /** The cart's address and chosen rate (§12): its zone's options and its tax region. */
    shippingAddress: CartRow['shipping_address'];
    shippingRateId: string | null;
    /**
     * A change that names the address or the rate checks them (400 naming `shippingAddress.country`
     * or `shippingRateId`); otherwise a saved cart reads as it can be priced (see priceCart).
     */
    strictShipping: boolean;
    /** The catalogue and automatic discounts read with the cart's lines (CartContents.pricing). */
    prefetched?: CartContents['pricing'];
  },
): Promise<Priced | null> {
  if (input.items.length === 0) return null;
  const price = (couponCode: string | null) =>
    priceCart(deps, executor, storeId, {
      prefetched: input.prefetched,
      items: input.items.map((i) => ({
        productId: i.product_id,
        variantId: i.variant_id,
        quantity: i.quantity,
      })),
      couponCode,
      customerId: input.customerId,
      activeOnly: true,
      fields: STOREFRONT_FIELDS,
      shippingAddress: input.shippingAddress,
      shippingRateId: input.shippingRateId,
      lenientShipping: !input.strictShipping,
    });
  if (!input.couponCode || input.strictCoupon) return price(input.couponCode);
  try {
    return await price(input.couponCode);
  } catch (error) {
    if (!isCouponRefusal(error)) throw error;
    return price(null);
  }
}

/** The customer a cart is priced for (once-per-customer coupons): its own, else its e-mail's. */
export async function pricingCustomerOf(deps: CartPricingDeps, executor: Executor, cart: CartRow) {
  if (cart.customer_id) return cart.customer_id;
  if (!cart.email) return null;
  return (await deps.customers.findByEmail(executor, cart.store_id, cart.email))?.id ?? null;
}

/** A cart's stored lines and the catalogue facts of their products (and of any product about to be added). */
export interface CartContents {
  items: CartItemRow[];
  facts: Map<string, CartProductFacts>;
  /**
   * What pricing reads, read with the lines (priceCart's `prefetched`): the catalogue rows of the
   * same products and the automatic discounts at `now`. Absent: pricing reads them itself.
   */
  pricing?: { catalogue: unknown[]; automatic: unknown[]; now: Date };
}

/**
 * Reads a cart's lines and their products' facts, plus those of `moreProductIds`, in one statement
 * (readTogether); with `pricing` (the default) also what pricing the cart reads (CartContents.pricing);
 * `images: false` when nothing shows them (completing the cart). The products are named by the
 * lines as the statement reads them, so a caller that holds the cart's lock sees its lines as they are.
 */
export async function loadContents(
  deps: CartPricingDeps,
  executor: Executor,
  cart: CartRow,
  moreProductIds: string[] = [],
  options: { images?: boolean; pricing?: boolean } = {},
): Promise<CartContents> {
  const { store_id: storeId, id } = cart;
  const productIds = repo.productIdsOfCart(storeId, id, moreProductIds);
  const withPricing = options.pricing ?? true;
  const now = new Date();
  const read = await readTogether(executor, {
    items: { query: repo.itemsQuery(storeId, id), orderBy: repo.ITEMS_ORDER },
    facts: { query: deps.products.cartFactsQuery(storeId, productIds, { images: options.images ?? true }) },
    catalogue: withPricing ? { query: deps.products.lookupForOrderQuery(storeId, productIds) } : undefined,
    automatic: withPricing ? deps.discounts.automaticQuery(executor, storeId, now) : undefined,
  });
  return {
    items: repo.itemsFromJson(read.items ?? []),
    facts: deps.products.cartFactsFromJson(read.facts ?? []),
    ...(withPricing
      ? { pricing: { catalogue: read.catalogue ?? [], automatic: read.automatic ?? [], now } }
      : {}),
  };
}

/** The stored lines that can still be bought (see isAvailable), in the order they were added. */
export function availableLines({ items, facts }: CartContents): PricedCartView['lines'] {
  return items.flatMap((item) => {
    const f = facts.get(item.product_id);
    return f && isAvailable(f, item.variant_id) ? [{ item, facts: f }] : [];
  });
}

/**
 * Prices a cart: what GET answers and what completing it places. `contents`: its lines and facts
 * when the caller already holds them (a change that just wrote them), else they are read.
 */
export async function viewCart(
  deps: CartPricingDeps,
  executor: Executor,
  cart: CartRow,
  contents?: CartContents,
): Promise<PricedCartView> {
  const storeId = cart.store_id;
  const read = contents ?? (await loadContents(deps, executor, cart));
  const lines = availableLines(read);
  const priced = await priceLines(deps, executor, storeId, {
    prefetched: read.pricing,
    items: lines.map((l) => l.item),
    couponCode: cart.coupon_code,
    customerId: await pricingCustomerOf(deps, executor, cart),
    strictCoupon: false,
    shippingAddress: cart.shipping_address,
    shippingRateId: cart.shipping_rate_id,
    strictShipping: false,
  });
  const store = priced?.store ?? (await deps.stores.getStore(storeId, executor));
  return {
    cart,
    lines,
    priced,
    currency: store.currency,
    taxesIncluded: store.prices_include_tax,
    couponCode: priced?.discount?.code ?? null,
  };
}

/**
 * PATCH's checks, on the cart as the change would leave it (`next`): a new coupon, address or rate
 * is priced against the cart now and refused with its reason (400 naming `couponCode`,
 * `shippingAddress.country` or `shippingRateId`). A new address alone does not refuse a stored rate
 * it does not offer: that rate is dropped when the cart is priced.
 */
export async function checkCartUpdate(
  deps: CartPricingDeps,
  executor: Executor,
  next: CartRow,
  contents: CartContents,
  input: {
    code: string | null | undefined;
    /** Whether the change names an address, and the rate it names (undefined: none). */
    shippingAddress: boolean;
    rateId: string | null | undefined;
    customerId: string | undefined;
  },
): Promise<void> {
  const { code } = input;
  const strictShipping = input.shippingAddress || Boolean(input.rateId);
  if (!code && !strictShipping) return;
  const view = await viewCart(deps, executor, { ...next, coupon_code: null }, contents);
  if (view.lines.length === 0) {
    if (!code && !input.rateId) return;
    const field = code ? 'couponCode' : 'shippingRateId';
    const message = 'the cart is empty: add items first';
    throw invalidRequest(`${field}: ${message}`, [{ field, message }]);
  }
  await priceLines(deps, executor, next.store_id, {
    prefetched: contents.pricing,
    items: view.lines.map((l) => l.item),
    couponCode: code ?? next.coupon_code,
    customerId: input.customerId ?? (await pricingCustomerOf(deps, executor, next)),
    strictCoupon: Boolean(code),
    shippingAddress: next.shipping_address,
    shippingRateId: input.rateId === undefined ? null : next.shipping_rate_id,
    strictShipping,
  });
}
