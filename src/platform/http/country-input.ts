import { Type } from 'typebox';
import { isCountryCode } from '../iso3166.js';
import { ERROR_HINT } from './validation-messages.js';

/**
 * The country of every address an API takes (checkout and quote, carts, merchant orders, customer
 * addresses): an assigned ISO 3166-1 alpha-2 code from the one ISO source (iso3166.ts), in any case
 * (the services store it upper-case, as before). Checked by the request validator as the format
 * below, so `XX` is 400 naming the address's own field (`shippingAddress.country`) before any
 * service runs, and every address schema says the same thing in the API description.
 */
export const COUNTRY_CODE_FORMAT = 'iso3166-alpha2';

/** Whether a request's country is an assigned alpha-2 code, ignoring case. */
export const isCountryInput = (value: string): boolean => isCountryCode(value.toUpperCase());

export const CountryCodeInput = Type.String({
  minLength: 2,
  maxLength: 2,
  format: COUNTRY_CODE_FORMAT,
  description: 'ISO 3166-1 alpha-2 country code such as US or DE (any case; stored upper-case)',
  [ERROR_HINT]: 'must be an ISO 3166-1 alpha-2 country code such as US or DE',
});

/** An address as stored: its country upper-case, however the request wrote it. */
export function withStoredCountry<T extends { country: string }>(address: T): T {
  return { ...address, country: address.country.toUpperCase() };
}
