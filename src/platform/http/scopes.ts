/**
 * The seed's scopes (storefront:read, customer:read and customer:write are reserved: accepted on
 * keys, granting nothing yet), then settings:read and settings:write (contract §9: payments).
 */
export const SCOPES = [
  'orders:read',
  'orders:write',
  'products:read',
  'products:write',
  'customers:read',
  'inventory:read',
  'inventory:write',
  'discounts:read',
  'discounts:write',
  'analytics:read',
  'webhooks:read',
  'webhooks:write',
  'storefront:read',
  'customer:read',
  'customer:write',
  'mobile:write',
  'settings:read',
  'settings:write',
] as const;

export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
