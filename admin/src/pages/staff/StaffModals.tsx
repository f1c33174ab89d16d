import { useState } from 'react';
import { ApiError, api } from '../../api/client';
import type { Invitation, Member } from '../../api/team-types';
import { ModalForm } from '../../components/dialogs';
import { ErrorBanner, TextField } from '../../components/ui';
import { PermissionPicker } from './PermissionPicker';

/** Invite someone by e-mail with the permissions they will have (POST /api/admin/staff/invitations). */
export function InviteModal({
  onClose,
  onInvited,
}: {
  onClose: () => void;
  onInvited: (invitation: Invitation) => void;
}) {
  const [email, setEmail] = useState('');
  const [permissions, setPermissions] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const submit = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const res = await api.post<{ data: Invitation }>('/api/admin/staff/invitations', {
        email: email.trim(),
        permissions,
      });
      onInvited(res.data);
    } catch (reason) {
      setError(reason);
      setBusy(false);
    }
  };
  const fieldError = (field: string) =>
    error instanceof ApiError ? error.fieldErrorWithin(field) : undefined;
  return (
    <ModalForm
      open
      wide
      title="Invite staff"
      submitLabel="Send invitation"
      busy={busy}
      onClose={onClose}
      onSubmit={() => void submit()}
    >
      <ErrorBanner error={error} title="Could not invite" />
      <TextField
        label="E-mail"
        type="email"
        autoFocus
        required
        value={email}
        onChange={(e) => setEmail(e.target.value)}
        hint="They get a link, valid 7 days, to set a name and password (or sign in, if they have an account)."
        error={fieldError('email')}
      />
      <PermissionPicker value={permissions} onChange={setPermissions} error={fieldError('permissions')} />
    </ModalForm>
  );
}

/** Change what a staff member may do (PATCH /api/admin/staff/{userId}); it holds from their next request. */
export function EditPermissionsModal({
  member,
  onClose,
  onSaved,
}: {
  member: Member;
  onClose: () => void;
  onSaved: (member: Member) => void;
}) {
  const [permissions, setPermissions] = useState<string[]>(member.permissions);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const submit = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const res = await api.patch<{ data: Member }>(
        `/api/admin/staff/${encodeURIComponent(member.user_id)}`,
        {
          permissions,
        },
      );
      onSaved(res.data);
    } catch (reason) {
      setError(reason);
      setBusy(false);
    }
  };
  return (
    <ModalForm
      open
      wide
      title={`Permissions of ${member.name || member.email}`}
      submitLabel="Save permissions"
      busy={busy}
      onClose={onClose}
      onSubmit={() => void submit()}
    >
      <ErrorBanner error={error} title="Could not save the permissions" />
      <PermissionPicker
        value={permissions}
        onChange={setPermissions}
        error={error instanceof ApiError ? error.fieldErrorWithin('permissions') : undefined}
      />
    </ModalForm>
  );
}
