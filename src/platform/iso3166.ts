import { iso31661, iso31662 } from 'iso-3166';

/**
 * The one source of country and subdivision codes (contract §12): ISO 3166-1 alpha-2 and ISO 3166-2
 * from the maintained `iso-3166` package. Address validation, the shop's country list, shipping
 * zones and tax regions all ask here; nothing keeps a hand-typed list.
 */

/** English names as browsers show them (`Germany`, not the standard's long forms), sorted by name. */
export const COUNTRIES: readonly { code: string; name: string }[] = (() => {
  const names = new Intl.DisplayNames(['en'], { type: 'region' });
  return iso31661
    .map((c) => ({ code: c.alpha2, name: names.of(c.alpha2) ?? c.name }))
    .sort((a, b) => a.name.localeCompare(b.name, 'en'));
})();

const countryNames = new Map(COUNTRIES.map((c) => [c.code, c.name]));

const subdivisions = new Map<string, { code: string; name: string }[]>();
const subdivisionCodes = new Set<string>();
for (const s of iso31662) {
  const country = s.code.slice(0, 2);
  const list = subdivisions.get(country) ?? [];
  list.push({ code: s.code, name: s.name });
  subdivisions.set(country, list);
  subdivisionCodes.add(s.code);
}
for (const list of subdivisions.values()) list.sort((a, b) => a.name.localeCompare(b.name, 'en'));

/** Whether `code` is an assigned ISO 3166-1 alpha-2 code (upper case, as stored). */
export const isCountryCode = (code: string): boolean => countryNames.has(code);

/** The English name of a country code (the code itself when unknown). */
export const countryName = (code: string): string => countryNames.get(code.toUpperCase()) ?? code;

/** Whether `code` is an ISO 3166-2 subdivision code (`US-CA`, upper case). */
export const isSubdivisionCode = (code: string): boolean => subdivisionCodes.has(code);

/** A country's subdivisions, sorted by name (empty for a country without any). */
export const subdivisionsOf = (country: string): readonly { code: string; name: string }[] =>
  subdivisions.get(country.toUpperCase()) ?? [];

/**
 * The ISO 3166-2 code an address's `region` names within `country`: written as the code (`US-CA`)
 * or the part after the hyphen (`CA`), in any case; null when it names none.
 */
export function subdivisionOf(country: string, region: string | null | undefined): string | null {
  if (!region) return null;
  const upper = region.trim().toUpperCase();
  const code = upper.includes('-') ? upper : `${country.toUpperCase()}-${upper}`;
  return code.startsWith(`${country.toUpperCase()}-`) && subdivisionCodes.has(code) ? code : null;
}
