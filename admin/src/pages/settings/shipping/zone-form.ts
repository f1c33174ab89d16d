import type { ShippingRate, ShippingZone } from '../../../api/types';

/**
 * A shipping zone's form as text fields, and the body a save sends. The body holds every field
 * (saveChanges sends only those that differ from what was loaded): `rates` is the whole list, each
 * rate that already exists with its id (contract §12: PATCH with `rates` replaces the list, a rate
 * given with its id keeps it). An empty condition is left out, which is "no condition"; what the
 * merchant typed is sent as typed, so the API's 400 names the very field that is wrong.
 */
export interface RateDraft {
  /** React's key: the rate's id, or a number for a rate not saved yet. */
  key: string;
  id?: string;
  name: string;
  price: string;
  minSubtotal: string;
  maxSubtotal: string;
  minWeight: string;
  maxWeight: string;
  freeAbove: string;
  daysMin: string;
  daysMax: string;
}

export interface ZoneDraft {
  name: string;
  countries: string[];
  rates: RateDraft[];
}

const text = (value: string | number | null | undefined): string =>
  value === null || value === undefined ? '' : String(value);

let nextKey = 0;
export function newRate(name = ''): RateDraft {
  nextKey += 1;
  return {
    key: `new-${nextKey}`,
    name,
    price: '',
    minSubtotal: '',
    maxSubtotal: '',
    minWeight: '',
    maxWeight: '',
    freeAbove: '',
    daysMin: '',
    daysMax: '',
  };
}

export function rateDraftOf(rate: ShippingRate): RateDraft {
  return {
    key: rate.id,
    id: rate.id,
    name: rate.name,
    price: text(rate.price),
    minSubtotal: text(rate.min_subtotal),
    maxSubtotal: text(rate.max_subtotal),
    minWeight: text(rate.min_weight_grams),
    maxWeight: text(rate.max_weight_grams),
    freeAbove: text(rate.free_above),
    daysMin: text(rate.delivery_days_min),
    daysMax: text(rate.delivery_days_max),
  };
}

export function zoneDraftOf(zone?: ShippingZone): ZoneDraft {
  return {
    name: zone?.name ?? '',
    countries: zone ? [...zone.countries] : [],
    rates: zone ? zone.rates.map(rateDraftOf) : [newRate('Standard')],
  };
}

/** A whole number as a number; anything else as typed (the API then names the field). */
function count(value: string): number | string {
  const trimmed = value.trim();
  return /^\d{1,15}$/.test(trimmed) ? Number(trimmed) : trimmed;
}

function rateBodyOf(rate: RateDraft) {
  const optional = {
    min_subtotal: rate.minSubtotal.trim(),
    max_subtotal: rate.maxSubtotal.trim(),
    min_weight_grams: rate.minWeight.trim() && count(rate.minWeight),
    max_weight_grams: rate.maxWeight.trim() && count(rate.maxWeight),
    free_above: rate.freeAbove.trim(),
    delivery_days_min: rate.daysMin.trim() && count(rate.daysMin),
    delivery_days_max: rate.daysMax.trim() && count(rate.daysMax),
  };
  return {
    ...(rate.id ? { id: rate.id } : {}),
    name: rate.name.trim(),
    price: rate.price.trim(),
    ...Object.fromEntries(Object.entries(optional).filter(([, v]) => v !== '')),
  };
}

export function zoneBodyOf(draft: ZoneDraft) {
  return {
    name: draft.name.trim(),
    countries: draft.countries,
    rates: draft.rates.map(rateBodyOf),
  };
}
