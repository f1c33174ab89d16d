import type { Executor } from '../../platform/db/database.js';
import type { TogetherPart } from '../../platform/db/read-together.js';
import { type ErrorDetail, invalidRequest } from '../../platform/http/errors.js';
import { currencyDecimals, MAX_AMOUNT, toDecimalString } from '../../platform/money.js';
import type { OrderableProduct, ProductsService } from '../catalog/index.js';
import type { RegionsPort } from '../regions/index.js';
import type { StoresService } from '../stores/index.js';
import { amountsOf, type OrderAmounts, undiscountedShipping } from './order-amounts.js';
import { amountsInRange, type Quote } from './totals.js';

/** What orders need of the discounts module: find the discount of a cart, then count its use. */
export interface AppliedDiscount {
  discountId: string;
  code: string | null;
  amount: number;
  freeShipping: boolean;
}
export interface DiscountCart {
  lines: { productId: string; categoryIds: readonly string[]; quantity: number; unitPrice: number }[];
  subtotal: number;
  shippingAmount: number;
}
export interface DiscountsPort {
  resolve(
    tx: Executor,
    storeId: string,
    input: {
      code?: string | null;
      customerId?: string | null;
      cart: DiscountCart;
      field: string;
      now?: Date;
      /** The rows of `automaticQuery(…, now)`, when the caller read them already. */
      automatic?: unknown[];
    },
  ): Promise<AppliedDiscount | null>;
  /** The automatic discounts' candidates at `now`, as a part of a readTogether. */
  automaticQuery(tx: Executor, storeId: string, now: Date): TogetherPart;
  redeem(
    tx: Executor,
    storeId: string,
    applied: AppliedDiscount,
    /** `field`: the request field of the coupon code, named when the coupon is refused (400). */
    who: { customerId: string | null; orderId: string; field: string },
  ): Promise<unknown>;
}

export interface CartItem {
  productId: string;
  variantId?: string | null;
  quantity: number;
  /** Minor units; merchants may set the price of a manual order's line. */
  price?: number;
}

/** Field names for error details: snake_case on /api/v1, camelCase on the storefront. */
export interface FieldNames {
  items: string;
  productId: string;
  variantId: string;
  coupon: string;
  shipping: { address: string; country: string; rateId: string };
}
export const MERCHANT_FIELDS: FieldNames = {
  items: 'items',
  productId: 'product_id',
  variantId: 'variant_id',
  coupon: 'coupon_code',
  shipping: { address: 'shipping_address', country: 'shipping_address.country', rateId: 'shipping_rate_id' },
};
export const STOREFRONT_FIELDS: FieldNames = {
  items: 'items',
  productId: 'productId',
  variantId: 'variantId',
  coupon: 'couponCode',
  shipping: { address: 'shippingAddress', country: 'shippingAddress.country', rateId: 'shippingRateId' },
};

export interface PricedLine {
  productId: string;
  variantId: string | null;
  name: string;
  variantTitle: string | null;
  sku: string | null;
  quantity: number;
  price: number;
  categoryIds: string[];
  /** Grams of one unit: the variant's, else the product's. */
  weightGrams: number;
  taxable: boolean;
  /** This line's tax, rounded (§12). */
  taxAmount: number;
}

export interface PricedCart {
  store: Awaited<ReturnType<StoresService['getStore']>>;
  lines: PricedLine[];
  discount: AppliedDiscount | null;
  quote: Quote;
  /** Shipping options and method, tax lines, whether taxes are included (contract §12). */
  regional: Omit<OrderAmounts, 'quote' | 'lineTaxes'>;
}

export interface PricingDeps {
  stores: StoresService;
  products: ProductsService;
  discounts: DiscountsPort;
  regions: RegionsPort;
}

/**
 * Prices a cart from the catalogue as it is in `executor` (the order's transaction, or the pool for
 * a quote): unknown products, variants that are not the product's, a missing variant choice and
 * (for shoppers) products that are not active are 400 with the offending field. Lines of the same
 * product and variant are merged.
 */
export async function priceCart(
  deps: PricingDeps,
  executor: Executor,
  storeId: string,
  input: {
    items: CartItem[];
    couponCode?: string | null;
    customerId?: string | null;
    activeOnly: boolean;
    fields: FieldNames;
    /** Where it ships: its country picks the zone's options and its region the tax rate (§12). */
    shippingAddress?: { country: string; region?: string | null } | null;
    /** The shipping rate chosen; without it the cheapest option. */
    shippingRateId?: string | null;
    /**
     * Placing an order: a store that prices by zone or tax region needs the address (400 naming
     * it); a quote or a cart without one yet is priced with no shipping and no regional tax.
     */
    requireAddress?: boolean;
    /** A saved cart being read: see AmountsInput.lenient. */
    lenientShipping?: boolean;
    /**
     * What the caller's readTogether already read: the rows of `products.lookupForOrderQuery` for
     * the items and, without a coupon code, those of `discounts.automaticQuery` at `now`.
     */
    prefetched?: { catalogue: unknown[]; automatic?: unknown[]; now: Date };
  },
): Promise<PricedCart> {
  const { fields, prefetched } = input;
  const store = await deps.stores.getStore(storeId, executor);
  const regions = await deps.regions.regionsOf(storeId, executor);
  const address = input.shippingAddress ?? null;
  if (input.requireAddress && !address && (regions.zones.length > 0 || regions.taxRegions.length > 0)) {
    const message = 'this store prices shipping and tax by destination: a shipping address is needed';
    throw invalidRequest(`${fields.shipping.address}: ${message}`, [
      { field: fields.shipping.address, message },
    ]);
  }
  const catalogue = prefetched
    ? deps.products.orderCatalogueFromJson(prefetched.catalogue)
    : await deps.products.lookupForOrder(
        executor,
        storeId,
        input.items.map((i) => i.productId),
      );
  const merged = new Map<string, PricedLine>();
  const details: ErrorDetail[] = [];
  input.items.forEach((item, index) => {
    const at = `${fields.items}.${index}`;
    const product: OrderableProduct | undefined = catalogue.get(item.productId);
    if (!product || (input.activeOnly && product.status !== 'active')) {
      details.push({ field: `${at}.${fields.productId}`, message: 'unknown or unavailable product' });
      return;
    }
    let variant = null;
    if (item.variantId) {
      variant = product.variants.get(item.variantId) ?? null;
      if (!variant) {
        details.push({ field: `${at}.${fields.variantId}`, message: 'not a variant of this product' });
        return;
      }
    } else if (product.variants.size > 0) {
      details.push({ field: `${at}.${fields.variantId}`, message: 'this product has variants: choose one' });
      return;
    }
    const key = `${product.id}/${variant?.id ?? ''}/${item.price ?? ''}`;
    const seen = merged.get(key);
    if (seen) {
      seen.quantity += item.quantity;
      return;
    }
    merged.set(key, {
      productId: product.id,
      variantId: variant?.id ?? null,
      name: product.name,
      variantTitle: variant?.title ?? null,
      sku: lineSku(product, variant),
      quantity: item.quantity,
      price: item.price ?? variant?.price ?? product.price,
      categoryIds: product.categoryIds,
      weightGrams: variant?.weightGrams ?? product.weightGrams,
      taxable: product.taxable,
      taxAmount: 0,
    });
  });
  const first = details[0];
  if (first) throw invalidRequest(`${first.field}: ${first.message}`, details);
  const lines = [...merged.values()];

  const rules = {
    shippingFlatRate: store.shipping_flat_rate,
    freeShippingThreshold: store.free_shipping_threshold,
    taxRateBps: store.tax_rate_bps,
    pricesIncludeTax: store.prices_include_tax,
    regions,
  };
  const subtotal = lines.reduce((sum, l) => sum + l.price * l.quantity, 0);
  const shippingRateId = input.shippingRateId ?? null;
  const discount = await deps.discounts.resolve(executor, storeId, {
    code: input.couponCode?.trim() || null,
    customerId: input.customerId ?? null,
    cart: {
      lines: lines.map((l) => ({
        productId: l.productId,
        categoryIds: l.categoryIds,
        quantity: l.quantity,
        unitPrice: l.price,
      })),
      subtotal,
      shippingAmount: undiscountedShipping(rules, { lines, address, shippingRateId }),
    },
    field: fields.coupon,
    ...(prefetched ? { now: prefetched.now, automatic: prefetched.automatic } : {}),
  });
  const { quote, lineTaxes, ...regional } = amountsOf(rules, {
    lines,
    discount,
    address,
    shippingRateId,
    lenient: input.lenientShipping,
    fields: fields.shipping,
  });
  lines.forEach((line, i) => {
    line.taxAmount = lineTaxes[i] ?? 0;
  });
  ensureAmountsInRange(quote, store.currency, fields.items);
  return { store, lines, discount, quote, regional };
}

/** Shipping options and method, tax lines and inclusion as the storefront's quote and cart show them. */
export function regionalForStorefront(regional: PricedCart['regional'], money: (minor: number) => number) {
  return {
    shippingOptions: regional.shippingOptions.map((o) => ({
      id: o.rate.id,
      name: o.rate.name,
      amount: money(o.amount),
      deliveryDaysMin: o.rate.deliveryDaysMin,
      deliveryDaysMax: o.rate.deliveryDaysMax,
    })),
    shippingMethod: regional.shippingMethod,
    taxLines: regional.taxLines.map((t) => ({ name: t.name, rate: t.rate, amount: money(t.amount) })),
    taxesIncluded: regional.taxesIncluded,
  };
}

/**
 * The one range check of order amounts, shared by the quote, checkout and POST /orders (through
 * priceCart) and by order edits: an order whose subtotal or total would pass MAX_AMOUNT is 400
 * naming `field`, so the quote refuses exactly what placing the order refuses.
 */
/** The SKU an order line keeps: its variant's, else its product's (checkout and item edits alike). */
export const lineSku = (product: { sku: string | null }, variant?: { sku: string | null } | null) =>
  variant?.sku ?? product.sku;

export function ensureAmountsInRange(
  amounts: { subtotal: number; total: number },
  currency: string,
  field: string,
): void {
  if (amountsInRange(amounts)) return;
  const message = `the order's subtotal and total must be at most ${toDecimalString(MAX_AMOUNT, currencyDecimals(currency))} ${currency}`;
  throw invalidRequest(`${field}: ${message}`, [{ field, message }]);
}
