import { currencyDecimals, toDecimalString } from '../../platform/money.js';
import { DEFAULT_STORE_COLORS } from './store-colors.js';
import type { StoreRow } from './stores.service.js';

/** A store's settings as the dashboard reads them (amounts as decimal strings, tax rate in percent). */
export function storeSettingsForAdmin(store: StoreRow & { has_orders: boolean }) {
  const decimals = currencyDecimals(store.currency);
  return {
    id: store.id,
    slug: store.slug,
    name: store.name,
    currency: store.currency,
    has_orders: store.has_orders,
    timezone: store.timezone,
    contact_email: store.contact_email,
    logo: store.logo,
    colors: store.colors,
    default_colors: DEFAULT_STORE_COLORS,
    low_stock_threshold: store.low_stock_threshold,
    shipping_flat_rate: toDecimalString(store.shipping_flat_rate, decimals),
    free_shipping_threshold:
      store.free_shipping_threshold === null
        ? null
        : toDecimalString(store.free_shipping_threshold, decimals),
    tax_rate: toDecimalString(store.tax_rate_bps, 2).replace(/\.?0+$/, '') || '0',
    prices_include_tax: store.prices_include_tax,
    app_config: store.app_config,
    custom_domain: store.custom_domain,
    created_at: store.created_at.toISOString(),
    updated_at: store.updated_at.toISOString(),
  };
}

/** A store's settings as the merchant API reads them (/api/v1/store): the mobile app's config aside. */
export function storeSettingsForApi(store: StoreRow & { has_orders: boolean }) {
  const { app_config: _appConfig, ...settings } = storeSettingsForAdmin(store);
  return settings;
}

/** An API key in the dashboard's list: never its secret or hash. */
export function apiKeyForAdmin(key: {
  id: string;
  name: string;
  key_prefix: string;
  scopes: string[];
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}) {
  return {
    id: key.id,
    name: key.name,
    prefix: key.key_prefix,
    scopes: key.scopes,
    created_at: key.created_at.toISOString(),
    last_used_at: key.last_used_at?.toISOString() ?? null,
    revoked_at: key.revoked_at?.toISOString() ?? null,
  };
}

/** A key just created, with its secret (shown only in this answer). */
export function createdApiKeyForAdmin(key: { id: string; key: string; name: string; scopes: string[] }) {
  return { id: key.id, key: key.key, name: key.name, scopes: key.scopes };
}
