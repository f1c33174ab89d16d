/**
 * The settings body of /api/admin/store and /api/v1/store, turned into the service's patch: one set
 * of rules for the dashboard and the merchant API (amounts in the store's minor units, the tax rate
 * in basis points, colours merged over the stored ones).
 */
import type { Static } from 'typebox';
import { invalidRequest } from '../../platform/http/errors.js';
import { parseMoney } from '../../platform/http/money-input.js';
import { currencyDecimals } from '../../platform/money.js';
import { changedStoreColors } from './store-colors.js';
import type { StoreSettingsBody } from './stores.schemas.js';
import type { StoreRow } from './stores.service.js';
import type { StoreSettingsPatch } from './stores.types.js';

export type StoreSettingsInput = Static<typeof StoreSettingsBody>;

export function settingsPatchOf(
  body: StoreSettingsInput,
  current: Pick<StoreRow, 'currency' | 'colors'>,
): StoreSettingsPatch {
  const decimals = currencyDecimals(current.currency);
  const { shipping_flat_rate, free_shipping_threshold, tax_rate, colors, ...rest } = body;
  const taxRateBps = tax_rate === undefined ? undefined : parseMoney(tax_rate, 'tax_rate', 2);
  if (taxRateBps !== undefined && taxRateBps > 10_000)
    throw invalidRequest('tax_rate must be at most 100', [{ field: 'tax_rate', message: 'at most 100' }]);
  return {
    ...rest,
    ...(colors ? { colors: changedStoreColors(current.colors, colors) } : {}),
    ...(shipping_flat_rate !== undefined
      ? { shipping_flat_rate: parseMoney(shipping_flat_rate, 'shipping_flat_rate', decimals) }
      : {}),
    ...(free_shipping_threshold !== undefined
      ? {
          free_shipping_threshold:
            free_shipping_threshold === null
              ? null
              : parseMoney(free_shipping_threshold, 'free_shipping_threshold', decimals),
        }
      : {}),
    ...(taxRateBps !== undefined ? { tax_rate_bps: taxRateBps } : {}),
  };
}
