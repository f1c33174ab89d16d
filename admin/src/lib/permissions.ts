/**
 * What a dashboard user may do, from GET /api/admin/me's `role` and `permissions` (contract §14):
 * an owner may do everything; a staff member what their permissions (API scopes) allow. The server
 * refuses the rest anyway (403): this only spares the user buttons that would fail.
 */

export type Role = 'owner' | 'staff';

export interface Access {
  role: Role;
  permissions: readonly string[];
}

/** What a page or a button needs: a scope, or the owner (staff, API keys, payments, the log). */
export type Requirement = { scope: string } | { owner: true };

export function allows(access: Access, need: Requirement | undefined): boolean {
  if (!need) return true;
  if (access.role === 'owner') return true;
  return 'scope' in need ? access.permissions.includes(need.scope) : false;
}

/** The sentence a refused page shows: what is missing, and whom to ask. */
export function refusal(need: Requirement): string {
  return 'scope' in need
    ? `You need the ${need.scope} permission — ask the store's owner.`
    : "Only the store's owner can open this page — ask them if you need something here.";
}

/** Scopes an API key may carry that give a staff member nothing in the dashboard (the shop's own). */
const NOT_FOR_STAFF = new Set(['storefront:read', 'customer:read', 'customer:write']);

export interface PermissionGroup {
  resource: string;
  label: string;
  scopes: { scope: string; label: string }[];
}

const RESOURCE_LABELS: Record<string, string> = {
  orders: 'Orders',
  products: 'Products',
  inventory: 'Inventory',
  customers: 'Customers',
  discounts: 'Discounts',
  analytics: 'Analytics',
  webhooks: 'Webhooks',
  mobile: 'Mobile app',
  settings: 'Settings',
};

const ACCESS_LABELS: Record<string, string> = { read: 'View', write: 'Edit' };

/**
 * The scopes grouped as they are named, by resource ("orders:read", "orders:write" → Orders: View,
 * Edit), in the order given; the shop's own scopes are left out.
 */
export function permissionGroups(scopes: readonly string[]): PermissionGroup[] {
  const groups = new Map<string, PermissionGroup>();
  for (const scope of scopes) {
    if (NOT_FOR_STAFF.has(scope)) continue;
    const [resource = scope, level = ''] = scope.split(':');
    let group = groups.get(resource);
    if (!group) {
      group = { resource, label: RESOURCE_LABELS[resource] ?? resource, scopes: [] };
      groups.set(resource, group);
    }
    group.scopes.push({ scope, label: ACCESS_LABELS[level] ?? level });
  }
  return [...groups.values()];
}

/** A member's permissions in words, for a table cell: "Orders (view, edit), Products (view)". */
export function describePermissions(permissions: readonly string[], scopes: readonly string[]): string {
  const groups = permissionGroups(scopes)
    .map((g) => ({ ...g, scopes: g.scopes.filter((s) => permissions.includes(s.scope)) }))
    .filter((g) => g.scopes.length > 0);
  if (groups.length === 0) return 'No permissions';
  return groups
    .map((g) => `${g.label} (${g.scopes.map((s) => s.label.toLowerCase()).join(', ')})`)
    .join(', ');
}
