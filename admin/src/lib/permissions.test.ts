import { describe, expect, it } from 'vitest';
import { allows, describePermissions, permissionGroups, refusal } from './permissions';

const SCOPES = ['orders:read', 'orders:write', 'products:read', 'settings:read', 'storefront:read'];

describe('allows', () => {
  const staff = { role: 'staff' as const, permissions: ['orders:read'] };
  const owner = { role: 'owner' as const, permissions: [] };
  it.each([
    [staff, undefined, true],
    [staff, { scope: 'orders:read' }, true],
    [staff, { scope: 'orders:write' }, false],
    [staff, { owner: true as const }, false],
    [owner, { scope: 'orders:write' }, true],
    [owner, { owner: true as const }, true],
  ])('%j needing %j → %s', (access, need, expected) => {
    expect(allows(access, need)).toBe(expected);
  });
});

describe('refusal', () => {
  it('names the missing permission and whom to ask', () => {
    expect(refusal({ scope: 'orders:read' })).toBe(
      "You need the orders:read permission — ask the store's owner.",
    );
    expect(refusal({ owner: true })).toMatch(/Only the store's owner/);
  });
});

describe('permissionGroups', () => {
  it('groups the scopes by resource in their order, without the shop’s own scopes', () => {
    expect(permissionGroups(SCOPES)).toEqual([
      {
        resource: 'orders',
        label: 'Orders',
        scopes: [
          { scope: 'orders:read', label: 'View' },
          { scope: 'orders:write', label: 'Edit' },
        ],
      },
      { resource: 'products', label: 'Products', scopes: [{ scope: 'products:read', label: 'View' }] },
      { resource: 'settings', label: 'Settings', scopes: [{ scope: 'settings:read', label: 'View' }] },
    ]);
  });
});

describe('describePermissions', () => {
  it('says what a member may do, by resource', () => {
    expect(describePermissions(['orders:read', 'orders:write', 'settings:read'], SCOPES)).toBe(
      'Orders (view, edit), Settings (view)',
    );
    expect(describePermissions([], SCOPES)).toBe('No permissions');
  });
});
