import type { StorefrontCart } from '../modules/carts/index.js';
import type { ShippingZone } from '../modules/regions/index.js';
import { AppError } from '../platform/http/errors.js';
import { countryName, isCountryCode } from '../platform/iso3166.js';
import type { Shopper } from './cart-session.js';
import type { DetailsValues } from './checkout-form.js';
import type { ShippingChoice } from './components/shipping-options.js';
import type { ShopContext } from './shop-context.js';
import type { ShopDeps } from './shop-deps.js';

/** The fields the pricing path names when it refuses an address or a rate (contract §12). */
export const COUNTRY_FIELD = 'shippingAddress.country';
export const RATE_FIELD = 'shippingRateId';

/** Whether `error` is a 400 naming `field`. */
export const refuses = (error: unknown, field: string) =>
  error instanceof AppError &&
  error.statusCode === 400 &&
  (error.details ?? []).some((d) => d.field === field);

/** What the form says next to the country when nothing can be shipped there. */
export const notShipped = (country: string) => `We don't ship to ${countryName(country)} yet.`;

/**
 * Why a country has no option: no zone takes it (the store does not ship there), or its zone has
 * no rate whose conditions this cart meets (weight, subtotal), which another cart may.
 */
function refusalOf(zones: readonly ShippingZone[], country: string): string {
  const covered = zones.some((z) => z.countries.includes(country) || z.countries.includes('*'));
  return covered
    ? `We have no shipping method for this order to ${countryName(country)}: change the items in your cart or the country.`
    : notShipped(country);
}

/**
 * Whether the cart's shipping and tax wait for its address: the store prices them by destination
 * (zones or tax regions) and the cart has none yet.
 */
export async function pricedByAddress(deps: ShopDeps, storeId: string, cart: { shippingAddress: unknown }) {
  if (cart.shippingAddress) return false;
  const { zones, taxRegions } = await deps.regions.regionsOf(storeId);
  return zones.length > 0 || taxRegions.length > 0;
}

/**
 * Shipping to the country of `values`, for a store with zones (null without any: the flat rate).
 * The cart's own options when it holds that country already; otherwise the storefront quote of
 * the cart's lines to that country (nothing is saved), so the options show before the address is
 * complete. `posted` is the choice just sent, kept checked when it is one of them.
 */
export async function shippingChoiceFor(
  deps: ShopDeps,
  shop: ShopContext,
  shopper: Shopper,
  cart: StorefrontCart,
  values: DetailsValues,
  posted?: string,
): Promise<ShippingChoice | null> {
  const { zones } = await deps.regions.regionsOf(shop.store.id);
  if (zones.length === 0) return null;
  const country = values.country.toUpperCase();
  if (!isCountryCode(country)) return { country: '', options: [], selected: null, refused: null };
  const saved = cart.shippingAddress?.country === country;
  let options = cart.shippingOptions;
  if (!saved) {
    try {
      options = (
        await deps.checkout.quote(
          shop.store.id,
          {
            email: values.email,
            items: cart.items.map((i) => ({
              productId: i.productId,
              variantId: i.variantId,
              quantity: i.quantity,
            })),
            couponCode: cart.couponCode,
            // Only the country and the region price shipping and tax; the rest may not be typed yet.
            shippingAddress: {
              line1: values.line1 || '-',
              city: values.city || '-',
              postalCode: values.postalCode || '-',
              region: values.region || null,
              country,
            },
            paymentMethod: 'manual',
          },
          shopper.customerId,
        )
      ).shippingOptions;
    } catch (error) {
      if (!refuses(error, COUNTRY_FIELD)) throw error;
      return { country, options: [], selected: null, refused: refusalOf(zones, country) };
    }
  }
  const among = (id: string | null | undefined) => (id && options.some((o) => o.id === id) ? id : null);
  return {
    country,
    options,
    selected: among(posted) ?? (saved ? among(cart.shippingMethod?.rateId) : null) ?? options[0]?.id ?? null,
    // A saved address the store stopped shipping to (a zone changed since) reads without options.
    refused: options.length === 0 ? refusalOf(zones, country) : null,
  };
}
