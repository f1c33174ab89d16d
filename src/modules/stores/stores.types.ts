/** The inputs of the stores service. */

export interface CreateStoreInput {
  slug: string;
  name: string;
  currency?: string;
  timezone?: string;
}

export interface StoreSettingsPatch {
  name?: string;
  logo?: string | null;
  colors?: Record<string, string>;
  currency?: string;
  timezone?: string;
  shipping_flat_rate?: number;
  free_shipping_threshold?: number | null;
  tax_rate_bps?: number;
  low_stock_threshold?: number;
  /** null clears it (notices then go to the owner's e-mail). */
  contact_email?: string | null;
  prices_include_tax?: boolean;
  /** As the merchant typed it: validated and normalised here; null or empty clears it. */
  custom_domain?: string | null;
}

export interface StoresOptions {
  /** PUBLIC_URL: its host cannot be a store's domain, and its scheme says which domain origins count. */
  publicUrl?: string;
  /**
   * Keep customDomainOrigins' in-memory list current from now until stopCustomDomains() (the app
   * server does, for its life; one-shot processes such as the CLI have no use for it).
   */
  watchDomains?: boolean;
  /**
   * Whether a store has orders (the orders module's answer): its currency is then fixed, since
   * every report of past money (overview, analytics, customers' totals) reads it as the store's.
   */
  hasOrders?: (storeId: string) => Promise<boolean>;
}
