import { Type } from 'typebox';
import { Nullable, StringEnum } from '../../platform/http/envelopes.js';
import { SCOPES, type Scope } from '../../platform/http/scopes.js';

const Role = StringEnum(['owner', 'staff'] as const);
const User = Type.Object({ id: Type.String(), email: Type.String(), name: Nullable(Type.String()) });
const StoreRef = Type.Object({ id: Type.String(), slug: Type.String(), name: Type.String() });
const MemberStore = Type.Object({ ...StoreRef.properties, role: Role });

/** The answer of sign-in, switch, invitation accept and `me`: who, on which store, allowed what. */
export const AdminSession = Type.Object({
  user: User,
  store: StoreRef,
  stores: Type.Array(MemberStore, { description: 'Every store the user belongs to, with their role there' }),
  role: Role,
  permissions: Type.Array(StringEnum(SCOPES), {
    description: "The session's effective scopes: every scope for an owner, the granted ones for staff",
  }),
});

export interface AdminSessionView {
  user: { id: string; email: string; name: string | null };
  store: { id: string; slug: string; name: string };
  stores: { id: string; slug: string; name: string; role: 'owner' | 'staff' }[];
  role: 'owner' | 'staff';
  permissions: readonly Scope[];
}

/** Only the listed fields: store rows carry settings the session answer has no business showing. */
export function adminSessionBody(view: AdminSessionView) {
  return {
    user: { id: view.user.id, email: view.user.email, name: view.user.name },
    store: { id: view.store.id, slug: view.store.slug, name: view.store.name },
    stores: view.stores.map((s) => ({ id: s.id, slug: s.slug, name: s.name, role: s.role })),
    role: view.role,
    permissions: [...view.permissions],
  };
}
