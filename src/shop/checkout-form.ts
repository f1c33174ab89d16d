import type { StorefrontCart } from '../modules/carts/index.js';
import { isCountryCode, subdivisionsOf } from '../platform/iso3166.js';
import { textField } from './forms.js';

/** The checkout's contact and shipping form, as typed (redrawn as typed when refused). */
export interface DetailsValues {
  email: string;
  firstName: string;
  lastName: string;
  phone: string;
  line1: string;
  line2: string;
  city: string;
  region: string;
  postalCode: string;
  country: string;
}

export type DetailsErrors = Partial<Record<keyof DetailsValues, string>>;

/** Field → [required, max length]: the carts API's limits (ShippingAddressInput), said before it refuses. */
const FIELDS: Record<keyof DetailsValues, [boolean, number]> = {
  email: [true, 254],
  firstName: [true, 100],
  lastName: [true, 100],
  phone: [false, 40],
  line1: [true, 255],
  line2: [false, 255],
  city: [true, 100],
  region: [false, 100],
  postalCode: [true, 20],
  country: [true, 2],
};

const LABELS: Record<keyof DetailsValues, string> = {
  email: 'e-mail address',
  firstName: 'first name',
  lastName: 'last name',
  phone: 'phone number',
  line1: 'address',
  line2: 'second address line',
  city: 'city',
  region: 'state or region',
  postalCode: 'postal code',
  country: 'country',
};

/** A plausible address: something@domain.tld, no spaces (the mail server has the last word). */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * The region as the pricing path matches it: a subdivision's English name, as the form's list
 * offers it ("California"), becomes its code after the hyphen ("CA"), so a state's tax applies to
 * what the buyer picked or typed; anything else stays as typed (docs/decisions.md).
 */
export function regionCode(country: string, region: string): string {
  const typed = region.trim().toLowerCase();
  if (!typed) return region;
  const match = subdivisionsOf(country).find((s) => s.name.toLowerCase() === typed);
  return match ? match.code.slice(match.code.indexOf('-') + 1) : region;
}

/** The values the form starts with: what the cart already holds. */
export function detailsOfCart(cart: StorefrontCart): DetailsValues {
  const a = cart.shippingAddress;
  return {
    email: cart.email ?? '',
    firstName: a?.firstName ?? '',
    lastName: a?.lastName ?? '',
    phone: a?.phone ?? '',
    line1: a?.line1 ?? '',
    line2: a?.line2 ?? '',
    city: a?.city ?? '',
    region: a?.region ?? '',
    postalCode: a?.postalCode ?? '',
    country: a?.country ?? '',
  };
}

/** The posted form checked field by field; `update` is the cart change when nothing is wrong. */
export function parseDetails(form: Record<string, string>) {
  const values = Object.fromEntries(
    (Object.keys(FIELDS) as (keyof DetailsValues)[]).map((name) => [name, textField(form, name)]),
  ) as unknown as DetailsValues;
  values.country = values.country.toUpperCase();
  values.region = regionCode(values.country, values.region);
  const errors: DetailsErrors = {};
  for (const [name, [required, max]] of Object.entries(FIELDS) as [
    keyof DetailsValues,
    [boolean, number],
  ][]) {
    const value = values[name];
    if (required && !value)
      errors[name] = name === 'country' ? 'Choose a country.' : `Enter your ${LABELS[name]}.`;
    else if (value.length > max)
      errors[name] = `Your ${LABELS[name]} is too long (at most ${max} characters).`;
  }
  if (!errors.email && !EMAIL.test(values.email))
    errors.email = 'Enter an e-mail address like name@example.com.';
  if (!errors.country && !isCountryCode(values.country)) errors.country = 'Choose a country.';
  const ok = Object.keys(errors).length === 0;
  const optional = (value: string) => value || null;
  const update = ok
    ? {
        email: values.email,
        shippingAddress: {
          firstName: values.firstName,
          lastName: values.lastName,
          phone: optional(values.phone),
          line1: values.line1,
          line2: optional(values.line2),
          city: values.city,
          region: optional(values.region),
          postalCode: values.postalCode,
          country: values.country,
        },
      }
    : undefined;
  return { values, errors, update };
}
