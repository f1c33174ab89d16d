import { formatMoney } from '../money.js';

/** A rate the buyer may choose, as the quote and the cart answer it (`shippingOptions`). */
export interface ShippingOptionData {
  id: string;
  name: string;
  amount: number;
  deliveryDaysMin: number | null;
  deliveryDaysMax: number | null;
}

/**
 * What the checkout knows of shipping to the country entered, for a store with shipping zones
 * (a store without any charges its flat rate and shows none of this).
 */
export interface ShippingChoice {
  /** The country entered (ISO 3166-1 alpha-2), '' before one is. */
  country: string;
  /** Its options, cheapest first; empty before a country is entered or where the store does not ship. */
  options: ShippingOptionData[];
  /** The option checked: the cart's (or the one just posted), else the cheapest. */
  selected: string | null;
  /** Why nothing can be shipped to `country` ("We don't ship to Brazil yet."); null when it can. */
  refused: string | null;
}

const days = (n: number) => `${n} business ${n === 1 ? 'day' : 'days'}`;

/** "2–4 business days", "1 business day", "up to 5 business days"; null without an estimate. */
export function deliveryEstimate(min: number | null, max: number | null): string | null {
  if (min !== null && max !== null) return min === max ? days(max) : `${min}–${days(max)}`;
  if (max !== null) return `up to ${days(max)}`;
  if (min !== null) return `at least ${days(min)}`;
  return null;
}

/** The price of an option as the shop says it: "Free" for nothing. */
export const shippingPrice = (amount: number, currency: string) =>
  amount === 0 ? 'Free' : formatMoney(amount, currency);

/**
 * The options for the country entered as radio buttons (`shippingRateId`), cheapest first, the
 * selected one checked; before a country is entered, or where none applies, a sentence instead.
 */
export function ShippingOptions({ choice, currency }: { choice: ShippingChoice; currency: string }) {
  return (
    <fieldset className="payment-methods shipping-options" id="checkout-shipping">
      <legend>Shipping method</legend>
      {choice.options.length === 0 ? (
        <p className="muted">
          {choice.refused
            ? 'Choose a country we ship to, then update the shipping options.'
            : 'Choose your country, then update the shipping options to see what delivery costs.'}
        </p>
      ) : (
        choice.options.map((option) => {
          const id = `shipping-${option.id}`;
          const estimate = deliveryEstimate(option.deliveryDaysMin, option.deliveryDaysMax);
          return (
            <div key={option.id} className="payment-method shipping-option">
              <input
                type="radio"
                id={id}
                name="shippingRateId"
                value={option.id}
                defaultChecked={option.id === choice.selected}
                aria-describedby={estimate ? `${id}-estimate` : undefined}
              />
              <div className="shipping-option__text">
                <label htmlFor={id}>
                  <span>{option.name}</span>
                  <span className="shipping-option__price">{shippingPrice(option.amount, currency)}</span>
                </label>
                {estimate ? (
                  <p id={`${id}-estimate`} className="muted">
                    {estimate}
                  </p>
                ) : null}
              </div>
            </div>
          );
        })
      )}
    </fieldset>
  );
}
