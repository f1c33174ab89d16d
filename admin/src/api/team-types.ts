/**
 * The team and audit shapes the dashboard uses (contract §14, as the helpers agreed them). Written by
 * hand until the server's document has them; then named over ./schema.ts like ./types.ts.
 */
import type { Role } from '../lib/permissions';

export interface Member {
  user_id: string;
  email: string;
  name: string | null;
  role: Role;
  permissions: string[];
  joined_at: string;
}

export interface Invitation {
  id: string;
  email: string;
  permissions: string[];
  expires_at: string;
  created_at: string;
}

export interface InvitationPreview {
  store: { name: string; slug: string };
  email: string;
  existing_user: boolean;
}

export interface AuditEntry {
  id: string;
  actor: { type: 'user' | 'api_key' | 'system'; id: string | null; name: string | null };
  action: string;
  resource_type: string;
  resource_id: string | null;
  ip: string | null;
  created_at: string;
}

/** What /api/admin/me and the sign-in answers add for teams. */
export interface Membership {
  role: Role;
  permissions: string[];
}
