import { useState } from 'react';
import { api } from '../../api/client';
import type { Invitation, Member } from '../../api/team-types';
import { SCOPES } from '../../api/types';
import { useConfirm } from '../../components/dialogs';
import { Badge, Button, Card, Empty, ErrorBanner, Loading, Notice, PageHeader } from '../../components/ui';
import { useResource } from '../../components/useResource';
import { formatDate, formatDateTime } from '../../lib/format';
import { describePermissions } from '../../lib/permissions';
import { useSession } from '../../session';
import { SettingsTabs } from '../settings/SettingsTabs';
import { EditPermissionsModal, InviteModal } from './StaffModals';

const who = (m: { name: string | null; email: string }) => m.name || m.email;

/**
 * Settings → Staff (owners only): the store's members with their role and permissions, editing a
 * staff member's permissions, removing one (their sessions for this store end at once), inviting by
 * e-mail, and the pending invitations with revoke.
 */
export function StaffPage() {
  const confirm = useConfirm();
  const { session } = useSession();
  const members = useResource(
    (signal) => api.get<{ data: Member[] }>('/api/admin/staff', undefined, signal),
    [],
  );
  const invitations = useResource(
    (signal) => api.get<{ data: Invitation[] }>('/api/admin/staff/invitations', undefined, signal),
    [],
  );
  const [inviting, setInviting] = useState(false);
  const [editing, setEditing] = useState<Member>();
  const [notice, setNotice] = useState<string>();
  const [error, setError] = useState<unknown>();

  const remove = async (member: Member) => {
    const ok = await confirm({
      title: `Remove ${who(member)}?`,
      message: `${who(member)} loses access to this store at once and is signed out of it. Their account and their other stores stay.`,
      confirmLabel: 'Remove from the store',
      danger: true,
    });
    if (!ok) return;
    setError(undefined);
    try {
      await api.delete(`/api/admin/staff/${encodeURIComponent(member.user_id)}`);
      setNotice(`${who(member)} was removed from the store.`);
      members.reload();
    } catch (reason) {
      setError(reason);
    }
  };

  const revoke = async (invitation: Invitation) => {
    const ok = await confirm({
      title: `Withdraw the invitation to ${invitation.email}?`,
      message: 'The link in their e-mail stops working.',
      confirmLabel: 'Withdraw invitation',
      danger: true,
    });
    if (!ok) return;
    setError(undefined);
    try {
      await api.delete(`/api/admin/staff/invitations/${encodeURIComponent(invitation.id)}`);
      setNotice(`The invitation to ${invitation.email} was withdrawn.`);
      invitations.reload();
    } catch (reason) {
      setError(reason);
    }
  };

  const list = members.data?.data ?? [];
  const pending = invitations.data?.data ?? [];
  return (
    <div className="stack-lg">
      <PageHeader
        title="Staff"
        actions={
          <Button variant="primary" onClick={() => setInviting(true)}>
            Invite staff
          </Button>
        }
      />
      <SettingsTabs />
      {notice ? <Notice>{notice}</Notice> : null}
      <ErrorBanner error={error} />
      <Card title="Members">
        <ErrorBanner error={members.error} title="Could not load the members" />
        {members.loading && !members.data ? <Loading label="Loading members…" /> : null}
        {list.length > 0 ? (
          <div className="table-wrap">
            <table className="responsive" data-testid="members">
              <thead>
                <tr>
                  <th>Member</th>
                  <th>Role</th>
                  <th>Permissions</th>
                  <th>Joined</th>
                  <th>
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {list.map((m) => (
                  <tr key={m.user_id}>
                    <td data-label="Member">
                      <div>
                        <strong>{who(m)}</strong>
                        {m.name ? <div className="hint">{m.email}</div> : null}
                      </div>
                    </td>
                    <td data-label="Role">
                      <div>
                        <Badge
                          value={m.role === 'owner' ? 'active' : 'draft'}
                          label={m.role === 'owner' ? 'Owner' : 'Staff'}
                        />
                      </div>
                    </td>
                    <td data-label="Permissions" className="scopes">
                      {m.role === 'owner' ? 'Everything' : describePermissions(m.permissions, SCOPES)}
                    </td>
                    <td data-label="Joined">{formatDate(m.joined_at)}</td>
                    <td className="row-actions">
                      {m.role === 'staff' && m.user_id !== session.user.id ? (
                        <>
                          <Button
                            variant="link"
                            onClick={() => setEditing(m)}
                            aria-label={`Edit permissions of ${who(m)}`}
                          >
                            Edit permissions
                          </Button>
                          <Button
                            variant="link"
                            onClick={() => void remove(m)}
                            aria-label={`Remove ${who(m)}`}
                          >
                            Remove
                          </Button>
                        </>
                      ) : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
      </Card>
      <Card title="Pending invitations">
        <ErrorBanner error={invitations.error} title="Could not load the invitations" />
        {invitations.loading && !invitations.data ? <Loading label="Loading invitations…" /> : null}
        {invitations.data && pending.length === 0 ? <Empty title="No pending invitations" /> : null}
        {pending.length > 0 ? (
          <div className="table-wrap">
            <table className="responsive" data-testid="invitations">
              <thead>
                <tr>
                  <th>E-mail</th>
                  <th>Permissions</th>
                  <th>Expires</th>
                  <th>
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {pending.map((i) => (
                  <tr key={i.id}>
                    <td data-label="E-mail">
                      <div>
                        <strong>{i.email}</strong>
                        <div className="hint">sent {formatDateTime(i.created_at)}</div>
                      </div>
                    </td>
                    <td data-label="Permissions" className="scopes">
                      {describePermissions(i.permissions, SCOPES)}
                    </td>
                    <td data-label="Expires">{formatDateTime(i.expires_at)}</td>
                    <td className="row-actions">
                      <Button
                        variant="link"
                        onClick={() => void revoke(i)}
                        aria-label={`Withdraw the invitation to ${i.email}`}
                      >
                        Withdraw
                      </Button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
      </Card>
      {inviting ? (
        <InviteModal
          onClose={() => setInviting(false)}
          onInvited={(invitation) => {
            setInviting(false);
            setNotice(`An invitation was sent to ${invitation.email}.`);
            invitations.reload();
          }}
        />
      ) : null}
      {editing ? (
        <EditPermissionsModal
          member={editing}
          onClose={() => setEditing(undefined)}
          onSaved={(member) => {
            setEditing(undefined);
            setNotice(`The permissions of ${who(member)} were saved.`);
            members.reload();
          }}
        />
      ) : null}
    </div>
  );
}
