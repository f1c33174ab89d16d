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

export type AuditEntry = Data<paths['/api/v1/audit-log']['get']>[number];
export type AuditPage = Json<paths['/api/v1/audit-log']['get']['responses'][200]>;
