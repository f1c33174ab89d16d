/** The seed's scopes. The last three are reserved: accepted on keys, granting nothing yet. */
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
] as const;

export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
