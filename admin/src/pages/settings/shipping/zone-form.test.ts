import { describe, expect, it } from 'vitest';
import type { ShippingZone } from '../../../api/types';
import { changedFields } from '../../../lib/concurrency';
import { newRate, zoneBodyOf, zoneDraftOf } from './zone-form';

const ZONE: ShippingZone = {
  id: 'z1',
  name: 'Europe',
  countries: ['DE', 'AT'],
  rates: [
    {
      id: 'r1',
      name: 'Standard',
      price: '4.90',
      min_subtotal: null,
      max_subtotal: null,
      min_weight_grams: null,
      max_weight_grams: 2000,
      free_above: '50.00',
      delivery_days_min: 2,
      delivery_days_max: 4,
    },
  ],
  created_at: '2026-11-28T10:00:00.000Z',
  updated_at: '2026-11-28T10:00:00.000Z',
};

describe('the shipping zone form', () => {
  it('sends a loaded zone back unchanged: a save of nothing changes nothing', () => {
    const before = zoneBodyOf(zoneDraftOf(ZONE));
    expect(before).toEqual({
      name: 'Europe',
      countries: ['DE', 'AT'],
      rates: [
        {
          id: 'r1',
          name: 'Standard',
          price: '4.90',
          max_weight_grams: 2000,
          free_above: '50.00',
          delivery_days_min: 2,
          delivery_days_max: 4,
        },
      ],
    });
    expect(changedFields(before, zoneBodyOf(zoneDraftOf(ZONE)))).toEqual([]);
  });

  it('sends the whole list of rates when one changes, each existing rate with its id', () => {
    const draft = zoneDraftOf(ZONE);
    const edited = {
      ...draft,
      rates: [
        { ...(draft.rates[0] as (typeof draft.rates)[0]), price: '5.90' },
        { ...newRate(), name: 'Express', price: '12' },
      ],
    };
    const body = zoneBodyOf(edited);
    expect(changedFields(zoneBodyOf(draft), body)).toEqual(['rates']);
    expect(body.rates).toEqual([
      expect.objectContaining({ id: 'r1', price: '5.90', free_above: '50.00' }),
      { name: 'Express', price: '12' },
    ]);
  });

  it('a country added is a change of countries only, in the order chosen', () => {
    const draft = zoneDraftOf(ZONE);
    const body = zoneBodyOf({ ...draft, countries: [...draft.countries, 'CH'] });
    expect(changedFields(zoneBodyOf(draft), body)).toEqual(['countries']);
    expect(body.countries).toEqual(['DE', 'AT', 'CH']);
  });

  it('sends whole numbers as numbers, and anything else as typed for the API to name', () => {
    const rate = {
      ...newRate(),
      name: ' Heavy ',
      price: '',
      minWeight: '2000',
      daysMin: 'two',
      maxSubtotal: ' 99.5 ',
    };
    expect(zoneBodyOf({ name: 'X', countries: ['*'], rates: [rate] }).rates[0]).toEqual({
      name: 'Heavy',
      price: '',
      min_weight_grams: 2000,
      delivery_days_min: 'two',
      max_subtotal: '99.5',
    });
  });

  it('a new zone starts with one rate to fill in', () => {
    const draft = zoneDraftOf();
    expect(draft.countries).toEqual([]);
    expect(draft.rates.map((r) => r.name)).toEqual(['Standard']);
  });
});
