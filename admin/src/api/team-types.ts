/**
 * The team and audit shapes the dashboard uses (contract §14), named over the types generated from the
 * server's route schemas (./schema.ts) as ./types.ts does.
 */
import type { paths } from './schema';

type Json<R extends { content: { 'application/json': unknown } }> = R['content']['application/json'];
type Data<Op extends { responses: { 200: { content: { 'application/json': { data: unknown } } } } }> = Json<
  Op['responses'][200]
>['data'];

export type Member = Data<paths['/api/admin/staff']['get']>[number];
export type Invitation = Data<paths['/api/admin/staff/invitations']['get']>[number];
export type InvitationPreview = Data<paths['/api/admin/invitations/{token}']['get']>;

/** Written by hand until the audit log's route is in the document (its agreed shape). */
export interface AuditEntry {
  id: string;
  actor: { type: 'user' | 'api_key' | 'system'; id: string | null; name: string | null };
  action: string;
  resource_type: string;
  resource_id: string | null;
  ip: string | null;
  created_at: string;
}
