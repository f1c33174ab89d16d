import { invalidRequest } from '../../platform/http/errors.js';
import type { StoreRegions } from '../regions/index.js';
import type { StoredTaxLine } from './orders.tables.js';
import { type ShippingOption, shippingOptionsOf, zoneOf } from './shipping-options.js';
import { type AppliedRate, taxOf, taxRegionFor } from './tax.js';
import { type Quote, totalOf } from './totals.js';

/**
 * An order's amounts from its lines, its discount and the store's way of pricing shipping and tax
 * (contract §12), with no I/O: the flat rate and store-wide tax of a store without zones or tax
 * regions, else the options of the address's zone and the rate of its tax region.
 */

export interface StorePricingRules {
  shippingFlatRate: number;
  freeShippingThreshold: number | null;
  taxRateBps: number;
  pricesIncludeTax: boolean;
  regions: StoreRegions;
}

export interface AmountLine {
  price: number;
  quantity: number;
  /** Grams of one unit. */
  weightGrams: number;
  taxable: boolean;
}

export interface ShippingFields {
  address: string;
  country: string;
  rateId: string;
}

export interface AmountsInput {
  lines: readonly AmountLine[];
  discount: { amount: number; freeShipping: boolean } | null;
  address: { country: string; region?: string | null } | null;
  shippingRateId?: string | null;
  /**
   * A saved cart being read: a country the store stopped shipping to, or a chosen rate that is no
   * longer an option, price as no shipping (and the cheapest option) instead of failing the read.
   */
  lenient?: boolean;
  fields: ShippingFields;
}

export interface OrderAmounts {
  quote: Quote;
  /** Each line's tax, in the order of `lines`. */
  lineTaxes: number[];
  taxLines: StoredTaxLine[];
  taxesIncluded: boolean;
  /** The options for the address (empty without zones or without an address). */
  shippingOptions: ShippingOption[];
  /** The rate shipping is priced at; null with the flat rate or before an address is known. */
  shippingMethod: { rateId: string; name: string } | null;
  /** False when the store has zones and none covers the address's country (lenient reads only). */
  shipsToAddress: boolean;
}

const refuse = (field: string, message: string) =>
  invalidRequest(`${field}: ${message}`, [{ field, message }]);

/** Σ quantity × unit weight: what the weight conditions of rates are checked against. */
export const weightOf = (lines: readonly AmountLine[]) =>
  lines.reduce((sum, l) => sum + l.quantity * l.weightGrams, 0);

/** The subtotal's shipping before any discount (what a discount's conditions are checked against). */
export function undiscountedShipping(
  rules: StorePricingRules,
  input: Pick<AmountsInput, 'lines' | 'address' | 'shippingRateId'>,
): number {
  return amountsOf(rules, {
    ...input,
    discount: null,
    lenient: true,
    fields: { address: '', country: '', rateId: '' },
  }).quote.shipping;
}

export function amountsOf(rules: StorePricingRules, input: AmountsInput): OrderAmounts {
  const { fields, address } = input;
  const subtotal = input.lines.reduce((sum, l) => sum + l.price * l.quantity, 0);
  const discount = Math.min(input.discount?.amount ?? 0, subtotal);
  const discounted = subtotal - discount;
  const freeShipping = input.discount?.freeShipping === true;

  let shipping = 0;
  let shippingOptions: ShippingOption[] = [];
  let shippingMethod: OrderAmounts['shippingMethod'] = null;
  let shipsToAddress = true;
  if (rules.regions.zones.length === 0) {
    const free =
      freeShipping || (rules.freeShippingThreshold !== null && discounted >= rules.freeShippingThreshold);
    shipping = free ? 0 : rules.shippingFlatRate;
  } else if (address) {
    const zone = zoneOf(rules.regions.zones, address.country);
    if (!zone) {
      if (!input.lenient)
        throw refuse(fields.country, `the store does not ship to ${address.country.toUpperCase()}`);
      shipsToAddress = false;
    } else {
      shippingOptions = shippingOptionsOf(zone, {
        discountedSubtotal: discounted,
        weightGrams: weightOf(input.lines),
        freeShipping,
      });
      const wanted = input.shippingRateId;
      let chosen = wanted ? shippingOptions.find((o) => o.rate.id === wanted) : shippingOptions[0];
      if (wanted && !chosen) {
        if (!input.lenient) throw refuse(fields.rateId, 'not a shipping option for this cart and address');
        chosen = shippingOptions[0];
      }
      if (!chosen && !input.lenient)
        throw refuse(
          fields.country,
          `the store has no shipping rate for this cart to ${address.country.toUpperCase()}`,
        );
      if (chosen) {
        shipping = chosen.amount;
        shippingMethod = { rateId: chosen.rate.id, name: chosen.rate.name };
      }
    }
  }

  // Without zones, or before an address, there are no options to choose among.
  if (input.shippingRateId && !shippingMethod && shipsToAddress && !input.lenient)
    throw refuse(fields.rateId, 'not a shipping option for this cart and address');

  const storeWide = rules.regions.taxRegions.length === 0;
  let rate: AppliedRate | null = null;
  if (storeWide) {
    if (rules.taxRateBps > 0)
      rate = {
        name: 'Tax',
        rateMillipercent: rules.taxRateBps * 10,
        country: null,
        region: null,
        shippingTaxable: false,
      };
  } else if (address) {
    rate = taxRegionFor(rules.regions.taxRegions, address);
  }
  const inclusive = rules.pricesIncludeTax;
  const taxed = taxOf({
    lines: input.lines.map((l) => ({ amount: l.price * l.quantity, taxable: l.taxable })),
    discount,
    shipping,
    rate,
    inclusive,
    storeWide,
  });
  const total = inclusive
    ? Math.max(0, discounted + shipping)
    : totalOf({ subtotal, discount, shipping, tax: taxed.tax });
  return {
    quote: { subtotal, discount, shipping, tax: taxed.tax, total },
    lineTaxes: taxed.lineTaxes,
    taxLines: taxed.taxLines,
    taxesIncluded: inclusive,
    shippingOptions,
    shippingMethod,
    shipsToAddress,
  };
}

/** "7.25" → 7250: a tax line's recorded rate back in thousandths of a percent. */
export function millipercentOf(rate: string): number {
  const [whole = '0', fraction = ''] = rate.split('.');
  return Number(whole) * 1000 + Number(fraction.padEnd(3, '0').slice(0, 3));
}

/**
 * An edited order's tax (§12): its lines, as they now are, taxed at the rate recorded in its tax
 * lines (the rate of its address at checkout), the frozen discount spread over them and the frozen
 * shipping taxed as it was, so the order's tax always matches its lines. Null for an order that
 * recorded no tax line of a place (placed before §12, with no tax, or taxed at the store-wide rate
 * of a store without tax regions): its tax stays as it was, as edits have always kept it there.
 */
export function retaxOrder(
  order: {
    tax_lines: readonly StoredTaxLine[];
    discount_amount: number;
    shipping_amount: number;
    taxes_included: boolean;
  },
  lines: readonly { price: number; quantity: number; taxable: boolean }[],
): { lineTaxes: number[]; tax: number; taxLines: StoredTaxLine[] } | null {
  const recorded = order.tax_lines[0];
  if (!recorded || recorded.country === null) return null;
  const amounts = lines.map((l) => ({ amount: l.price * l.quantity, taxable: l.taxable }));
  const subtotal = amounts.reduce((sum, l) => sum + l.amount, 0);
  const taxed = taxOf({
    lines: amounts,
    discount: Math.min(order.discount_amount, subtotal),
    shipping: order.shipping_amount,
    rate: {
      name: recorded.name,
      rateMillipercent: millipercentOf(recorded.rate),
      country: recorded.country,
      region: recorded.region,
      shippingTaxable: recorded.shipping_taxable === true,
    },
    inclusive: order.taxes_included,
    storeWide: false,
  });
  return { lineTaxes: taxed.lineTaxes, tax: taxed.tax, taxLines: taxed.taxLines };
}
