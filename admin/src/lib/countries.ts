/**
 * Country names for the settings' pickers, from the server (GET /api/admin/countries: the ISO 3166
 * list the API validates codes against), and the search the shipping zone's picker runs over them.
 * Pure functions here; the fetching hook is in components/useCountries.
 */

/** The code of a shipping zone for every country no other zone names (contract §12). */
export const REST_OF_WORLD = '*';
export const REST_OF_WORLD_NAME = 'Rest of the world';

export interface Place {
  code: string;
  name: string;
}

/** "Åland" → "aland": a search ignores case and accents. */
function fold(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{Diacritic}/gu, '')
    .toLowerCase();
}

/**
 * The places matching what the merchant typed, best first: the code itself ("de"), then names that
 * start with it ("ger…"), then names with a word that does ("king" → United Kingdom), then names
 * containing it. Places in `exclude` (already chosen) are left out; an empty query lists all.
 */
export function searchPlaces(places: readonly Place[], query: string, exclude: readonly string[] = []) {
  const skip = new Set(exclude);
  const q = fold(query.trim());
  const candidates = places.filter((p) => !skip.has(p.code));
  if (!q) return candidates;
  const rank = (p: Place): number => {
    const name = fold(p.name);
    if (fold(p.code) === q) return 0;
    if (name.startsWith(q)) return 1;
    if (name.split(/[\s\-(),.']+/).some((word) => word.startsWith(q))) return 2;
    if (name.includes(q)) return 3;
    return -1;
  };
  return candidates
    .map((place, index) => ({ place, index, rank: rank(place) }))
    .filter((c) => c.rank >= 0)
    .sort((a, b) => a.rank - b.rank || a.index - b.index)
    .map((c) => c.place);
}

/** The countries a zone can hold: "Rest of the world" first, then the server's list. */
export function zonePlaces(countries: readonly Place[]): Place[] {
  return [{ code: REST_OF_WORLD, name: REST_OF_WORLD_NAME }, ...countries];
}

/** A lookup of names by code ("*" included); an unknown code is shown as itself. */
export function namer(places: readonly Place[]): (code: string) => string {
  const names = new Map(places.map((p) => [p.code, p.name]));
  names.set(REST_OF_WORLD, REST_OF_WORLD_NAME);
  return (code) => names.get(code) ?? code;
}

/** "Germany, Austria and 3 more": a zone's countries in a table cell. */
export function countryList(codes: readonly string[], nameOf: (code: string) => string, shown = 5): string {
  const names = codes.map(nameOf);
  if (names.length <= shown) return names.join(', ');
  return `${names.slice(0, shown).join(', ')} and ${names.length - shown} more`;
}
