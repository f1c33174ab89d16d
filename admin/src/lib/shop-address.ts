import type { StoreSettings } from '../api/types';

/**
 * The store's web shop: on its own domain when it has one (served on this dashboard's scheme, as the
 * shop's canonical URLs are), else at /shop/{slug}/ of this server.
 */
export function shopAddress(store: Pick<StoreSettings, 'slug' | 'custom_domain'>): string {
  if (store.custom_domain) return `${window.location.protocol}//${store.custom_domain}/`;
  return `/shop/${encodeURIComponent(store.slug)}/`;
}
