import { useEffect, useState } from 'react';
import { api } from '../api/client';
import type { Country, CountryWithSubdivisions } from '../api/types';

/*
 * The server's country list is the same for every page and only changes with a release: asked once
 * per page load and shared. A failed answer is forgotten, so the next page asks again.
 */
let countries: Promise<Country[]> | undefined;
const countriesWithSubdivisions = new Map<string, Promise<CountryWithSubdivisions>>();

function remembered<T>(promise: Promise<T>, forget: () => void): Promise<T> {
  promise.catch(forget);
  return promise;
}

function loadCountries(): Promise<Country[]> {
  countries ??= remembered(
    api.get<{ data: Country[] }>('/api/admin/countries').then((res) => res.data),
    () => {
      countries = undefined;
    },
  );
  return countries;
}

function loadCountry(code: string): Promise<CountryWithSubdivisions> {
  let country = countriesWithSubdivisions.get(code);
  if (!country) {
    country = remembered(
      api
        .get<{ data: CountryWithSubdivisions }>(`/api/admin/countries/${encodeURIComponent(code)}`)
        .then((res) => res.data),
      () => countriesWithSubdivisions.delete(code),
    );
    countriesWithSubdivisions.set(code, country);
  }
  return country;
}

/** Every ISO 3166-1 country, by name (empty while loading); `error` when the list could not be read. */
export function useCountries(): { countries: Country[]; error: unknown } {
  const [state, setState] = useState<{ countries: Country[]; error: unknown }>({
    countries: [],
    error: undefined,
  });
  useEffect(() => {
    let live = true;
    loadCountries().then(
      (list) => live && setState({ countries: list, error: undefined }),
      (error: unknown) => live && setState({ countries: [], error }),
    );
    return () => {
      live = false;
    };
  }, []);
  return state;
}

/** A country's ISO 3166-2 subdivisions (empty for none, while loading, or without a country). */
export function useSubdivisions(country: string): { code: string; name: string }[] {
  const [subdivisions, setSubdivisions] = useState<{
    country: string;
    list: { code: string; name: string }[];
  }>();
  useEffect(() => {
    if (!country) return;
    let live = true;
    loadCountry(country).then(
      (c) => live && setSubdivisions({ country, list: c.subdivisions }),
      () => live && setSubdivisions({ country, list: [] }),
    );
    return () => {
      live = false;
    };
  }, [country]);
  return subdivisions?.country === country ? subdivisions.list : [];
}

/** Names of the subdivisions of these countries (`US-CA` → California), for a list; codes until read. */
export function useSubdivisionNames(countries: readonly string[]): (code: string) => string {
  const key = [...new Set(countries)].sort().join(',');
  const [names, setNames] = useState<Map<string, string>>(new Map());
  useEffect(() => {
    if (!key) return;
    let live = true;
    Promise.allSettled(key.split(',').map(loadCountry)).then((answers) => {
      if (!live) return;
      const map = new Map<string, string>();
      for (const answer of answers)
        if (answer.status === 'fulfilled') for (const s of answer.value.subdivisions) map.set(s.code, s.name);
      setNames(map);
    });
    return () => {
      live = false;
    };
  }, [key]);
  return (code) => names.get(code) ?? code;
}
