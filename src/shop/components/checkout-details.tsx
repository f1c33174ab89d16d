import { COUNTRIES, subdivisionsOf } from '../../platform/iso3166.js';
import type { DetailsErrors, DetailsValues } from '../checkout-form.js';
import { type ShopContext, shopHref } from '../shop-context.js';
import { type ShippingChoice, ShippingOptions } from './shipping-options.js';

export interface Details {
  values: DetailsValues;
  errors: DetailsErrors;
}

interface FieldProps {
  name: keyof DetailsValues;
  label: string;
  details: Details;
  autoComplete: string;
  type?: string;
  optional?: boolean;
  /** The id of a datalist of suggestions (free text stays allowed). */
  list?: string;
}

const errorId = (name: string) => `checkout-${name}-error`;

function Field({ name, label, details, autoComplete, type = 'text', optional, list }: FieldProps) {
  const id = `checkout-${name}`;
  const error = details.errors[name];
  return (
    <div className="field">
      <label htmlFor={id}>
        {label} {optional ? <span className="muted">(optional)</span> : null}
      </label>
      <input
        id={id}
        name={name}
        type={type}
        autoComplete={autoComplete}
        required={!optional}
        list={list}
        defaultValue={details.values[name]}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? errorId(name) : undefined}
      />
      {error ? (
        <p id={errorId(name)} className="field-error">
          {error}
        </p>
      ) : null}
    </div>
  );
}

/**
 * The state or region: free text, with the country's ISO 3166-2 subdivisions offered by name when
 * it has any (a datalist keeps typing working without JavaScript; checkout-form maps a name to its
 * code so a state's tax applies).
 */
function RegionField({ details }: { details: Details }) {
  const subdivisions = subdivisionsOf(details.values.country);
  const list = subdivisions.length > 0 ? 'checkout-region-list' : undefined;
  return (
    <>
      <Field
        name="region"
        label="State / region"
        autoComplete="address-level1"
        optional
        details={details}
        list={list}
      />
      {list ? (
        <datalist id={list}>
          {subdivisions.map((s) => (
            <option key={s.code} value={s.name} />
          ))}
        </datalist>
      ) : null}
    </>
  );
}

function CountryField({ details }: { details: Details }) {
  const error = details.errors.country;
  return (
    <div className="field">
      <label htmlFor="checkout-country">Country</label>
      <select
        id="checkout-country"
        name="country"
        autoComplete="country"
        required
        defaultValue={details.values.country}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? errorId('country') : undefined}
      >
        <option value="">Choose a country</option>
        {COUNTRIES.map((c) => (
          <option key={c.code} value={c.code}>
            {c.name}
          </option>
        ))}
      </select>
      {error ? (
        <p id={errorId('country')} className="field-error">
          {error}
        </p>
      ) : null}
    </div>
  );
}

/**
 * The contact and address inputs (no form of their own). With shipping zones, a button re-renders
 * the page with the options of the country chosen: the way to see them without JavaScript.
 */
export function DetailsFields({ details, shipping }: { details: Details; shipping: ShippingChoice | null }) {
  return (
    <>
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
        <RegionField details={details} />
      </div>
      <div className="field-row">
        <Field name="postalCode" label="Postal code" autoComplete="postal-code" details={details} />
        <CountryField details={details} />
      </div>
      {shipping ? (
        <p className="checkout-update">
          <button type="submit" name="update" value="shipping" className="secondary" data-shipping-update="">
            Update shipping options
          </button>
        </p>
      ) : null}
    </>
  );
}

/** Every refusal of the form above it, so a screen reader hears them at once. */
function ErrorSummary({ details }: { details: Details }) {
  const errors = Object.values(details.errors);
  if (errors.length === 0) return null;
  return (
    <div className="notice notice--error" role="alert">
      <p>Please check the highlighted fields:</p>
      <ul>
        {errors.map((error) => (
          <li key={error}>{error}</li>
        ))}
      </ul>
    </div>
  );
}

/**
 * Enter in a field submits with a form's first submit button: this one, the form's own action,
 * so the "Update shipping options" button before it in the page is not the default. Out of sight
 * and of the tab order; the visible buttons do the same.
 */
export function DefaultSubmit() {
  return (
    <button type="submit" className="visually-hidden" tabIndex={-1} aria-hidden="true">
      Continue
    </button>
  );
}

/** Step 1 while it is open: contact, address, the shipping options of its country, continue. */
export function DetailsForm({
  shop,
  details,
  shipping,
  currency,
}: {
  shop: ShopContext;
  details: Details;
  shipping: ShippingChoice | null;
  currency: string;
}) {
  return (
    <form method="post" action={shopHref(shop, '/checkout/details')} noValidate data-checkout-details="">
      {shipping ? <DefaultSubmit /> : null}
      <ErrorSummary details={details} />
      <DetailsFields details={details} shipping={shipping} />
      {shipping ? <ShippingOptions choice={shipping} currency={currency} /> : null}
      <button type="submit">Continue to payment</button>
    </form>
  );
}
