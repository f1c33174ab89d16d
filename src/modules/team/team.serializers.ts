import { isScope } from '../../platform/http/scopes.js';
import type { Member } from './team.service.js';

export function memberBody(member: Member) {
  return {
    user_id: member.user_id,
    email: member.email,
    name: member.name,
    role: member.role,
    permissions: member.permissions,
    joined_at: member.created_at.toISOString(),
  };
}

/** Never the token (nor its hash): it exists only in the e-mailed link. */
export function invitationBody(row: {
  id: string;
  email: string;
  permissions: string[];
  expires_at: Date;
  created_at: Date;
}) {
  return {
    id: row.id,
    email: row.email,
    permissions: row.permissions.filter(isScope),
    expires_at: row.expires_at.toISOString(),
    created_at: row.created_at.toISOString(),
  };
}
