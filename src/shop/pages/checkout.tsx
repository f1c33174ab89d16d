import type { StorefrontCart } from '../../modules/carts/index.js';
import type { PaymentMethod } from '../../modules/payments/index.js';
import type { DetailsErrors, DetailsValues } from '../checkout-form.js';
import { Frame } from '../components/frame.js';
import { AddressLines, SummaryLines, Totals } from '../components/order-summary.js';
import { COUNTRIES, countryName } from '../countries.js';
import { formatMoney } from '../money.js';
import { type ShopContext, shopHref } from '../shop-context.js';

export interface CheckoutPageProps {
  shop: ShopContext;
  cart: StorefrontCart;
  /** The payment methods this shop offers here, in the order shown. */
  methods: PaymentMethod[];
  details: { values: DetailsValues; errors: DetailsErrors };
  /** Why placing the order was refused (declined card, stock gone…). */
  paymentError?: string;
  chosen?: { method: string; cardToken: string };
}

interface FieldProps {
  name: keyof DetailsValues;
  label: string;
  details: CheckoutPageProps['details'];
  autoComplete: string;
  type?: string;
  optional?: boolean;
  className?: string;
}

function Field({ name, label, details, autoComplete, type = 'text', optional, className }: FieldProps) {
  const id = `checkout-${name}`;
  const error = details.errors[name];
  return (
    <div className={`field ${className ?? ''}`}>
      <label htmlFor={id}>
        {label} {optional ? <span className="muted">(optional)</span> : null}
      </label>
      <input
        id={id}
        name={name}
        type={type}
        autoComplete={autoComplete}
        required={!optional}
        defaultValue={details.values[name]}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
      />
      {error ? (
        <p id={`${id}-error`} className="field-error">
          {error}
        </p>
      ) : null}
    </div>
  );
}

function DetailsForm({ shop, details }: Pick<CheckoutPageProps, 'shop' | 'details'>) {
  const errors = Object.values(details.errors);
  const countryError = details.errors.country;
  return (
    <form method="post" action={shopHref(shop, '/checkout/details')} noValidate>
      {errors.length > 0 ? (
        <div className="notice notice--error" role="alert">
          <p>Please check the highlighted fields:</p>
          <ul>
            {errors.map((error) => (
              <li key={error}>{error}</li>
            ))}
          </ul>
        </div>
      ) : null}
      <Field name="email" label="E-mail" type="email" autoComplete="email" details={details} />
      <div className="field-row">
        <Field name="firstName" label="First name" autoComplete="given-name" details={details} />
        <Field name="lastName" label="Last name" autoComplete="family-name" details={details} />
      </div>
      <Field name="phone" label="Phone" type="tel" autoComplete="tel" optional details={details} />
      <Field name="line1" label="Address" autoComplete="address-line1" details={details} />
      <Field
        name="line2"
        label="Apartment, suite, etc."
        autoComplete="address-line2"
        optional
        details={details}
      />
      <div className="field-row">
        <Field name="city" label="City" autoComplete="address-level2" details={details} />
        <Field
          name="region"
          label="State / region"
          autoComplete="address-level1"
          optional
          details={details}
        />
      </div>
      <div className="field-row">
        <Field name="postalCode" label="Postal code" autoComplete="postal-code" details={details} />
        <div className="field">
          <label htmlFor="checkout-country">Country</label>
          <select
            id="checkout-country"
            name="country"
            autoComplete="country"
            required
            defaultValue={details.values.country}
            aria-invalid={countryError ? true : undefined}
            aria-describedby={countryError ? 'checkout-country-error' : undefined}
          >
            <option value="">Choose a country</option>
            {COUNTRIES.map((c) => (
              <option key={c.code} value={c.code}>
                {c.name}
              </option>
            ))}
          </select>
          {countryError ? (
            <p id="checkout-country-error" className="field-error">
              {countryError}
            </p>
          ) : null}
        </div>
      </div>
      <button type="submit">Continue to payment</button>
    </form>
  );
}

const METHOD_TEXT: Record<PaymentMethod, { label: string; help: string }> = {
  stripe: { label: 'Card', help: 'Enter your card on the next step, in a secure form by Stripe.' },
  test_card: {
    label: 'Test card',
    help: 'This shop runs in development mode: no real money moves. Pick a test card to try the checkout.',
  },
  manual: {
    label: 'Pay later',
    help: 'Place the order now and pay the shop later, as it arranges with you. The order waits for your payment.',
  },
};

function PaymentForm({ shop, cart, methods, chosen, paymentError }: Omit<CheckoutPageProps, 'details'>) {
  const selected = methods.includes(chosen?.method as PaymentMethod) ? chosen?.method : methods[0];
  return (
    <form method="post" action={shopHref(shop, '/checkout')}>
      {paymentError ? (
        <div className="notice notice--error" role="alert">
          <p>{paymentError}</p>
        </div>
      ) : null}
      <fieldset className="payment-methods">
        <legend>Payment method</legend>
        {methods.map((method) => (
          <div key={method} className="payment-method">
            <input
              type="radio"
              id={`payment-${method}`}
              name="paymentMethod"
              value={method}
              defaultChecked={method === selected}
              aria-describedby={`payment-${method}-help`}
            />
            <div>
              <label htmlFor={`payment-${method}`}>{METHOD_TEXT[method].label}</label>
              <p id={`payment-${method}-help`} className="muted">
                {METHOD_TEXT[method].help}
              </p>
              {method === 'test_card' ? (
                <div className="field">
                  <label htmlFor="payment-card-token">Test card to use</label>
                  <select
                    id="payment-card-token"
                    name="cardToken"
                    defaultValue={chosen?.cardToken || 'tok_visa'}
                  >
                    <option value="tok_visa">Visa …4242 (approved)</option>
                    <option value="tok_decline">Visa …0002 (declined)</option>
                  </select>
                </div>
              ) : null}
            </div>
          </div>
        ))}
      </fieldset>
      <button type="submit" className="button--wide">
        Place order · {formatMoney(cart.total, cart.currency)}
      </button>
    </form>
  );
}

/**
 * Checkout in two steps on one page: contact and shipping address (saved on the cart), then, once
 * the cart has them, the totals as they will be charged and the payment methods.
 */
export function CheckoutPage(props: CheckoutPageProps) {
  const { shop, cart } = props;
  const ready = Boolean(cart.email && cart.shippingAddress);
  // The details form stays open until the cart has them, and whenever they were just refused.
  const editing = !ready || Object.keys(props.details.errors).length > 0;
  return (
    <Frame
      shop={shop}
      meta={{ title: 'Checkout', description: `Checkout at ${shop.store.name}.`, noindex: true }}
    >
      <h1>Checkout</h1>
      <div className="checkout-layout">
        <div className="checkout-steps">
          <section className="checkout-step" aria-labelledby="checkout-details">
            <h2 id="checkout-details">
              <span className="checkout-step__number" aria-hidden="true">
                1
              </span>
              Contact and shipping
            </h2>
            {editing || !cart.shippingAddress ? (
              <DetailsForm shop={shop} details={props.details} />
            ) : (
              <div className="checkout-ship-to">
                <p>
                  <strong>Contact</strong> {cart.email}
                </p>
                <p>
                  <strong>Ship to</strong>
                </p>
                <AddressLines address={cart.shippingAddress} countryName={countryName} />
                <details className="checkout-change">
                  <summary>Change contact or address</summary>
                  <DetailsForm shop={shop} details={props.details} />
                </details>
              </div>
            )}
          </section>
          <section className="checkout-step" id="payment" aria-labelledby="checkout-payment">
            <h2 id="checkout-payment">
              <span className="checkout-step__number" aria-hidden="true">
                2
              </span>
              Payment
            </h2>
            {ready ? (
              props.methods.length > 0 ? (
                <PaymentForm {...props} />
              ) : (
                <p className="notice notice--error">This shop takes no payments at the moment.</p>
              )
            ) : (
              <p className="muted">
                Enter your contact and shipping details first: then you choose how to pay.
              </p>
            )}
          </section>
        </div>
        <aside className="summary-card" aria-labelledby="checkout-summary">
          <h2 id="checkout-summary">Order summary</h2>
          <SummaryLines lines={cart.items} currency={cart.currency} />
          <Totals totals={cart} />
          <p>
            <a href={shopHref(shop, '/cart')}>Edit cart</a>
          </p>
        </aside>
      </div>
    </Frame>
  );
}
