import { Type } from 'typebox';
import { Nullable, StringEnum } from '../../platform/http/envelopes.js';
import { SCOPES } from '../../platform/http/scopes.js';

const Timestamp = Type.String({ format: 'date-time' });
const Permissions = Type.Array(StringEnum(SCOPES), {
  maxItems: SCOPES.length * 2,
  description: 'API scopes the staff member holds (duplicates are ignored)',
});
const Email = Type.String({ minLength: 3, maxLength: 254, format: 'email' });

export const Member = Type.Object({
  user_id: Type.String(),
  email: Type.String(),
  name: Nullable(Type.String()),
  role: StringEnum(['owner', 'staff'] as const),
  permissions: Type.Array(StringEnum(SCOPES), { description: "An owner's lists every scope" }),
  joined_at: Timestamp,
});

export const Invitation = Type.Object({
  id: Type.String(),
  email: Type.String(),
  permissions: Type.Array(StringEnum(SCOPES)),
  expires_at: Timestamp,
  created_at: Timestamp,
});

export const InvitationBody = Type.Object(
  { email: Email, permissions: Permissions },
  { additionalProperties: false },
);

export const PermissionsBody = Type.Object({ permissions: Permissions }, { additionalProperties: false });

export const UserIdParams = Type.Object({ userId: Type.String({ minLength: 1, maxLength: 100 }) });

export const TokenParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 100 }) });

export const InvitationPreview = Type.Object({
  store: Type.Object({ name: Type.String(), slug: Type.String() }),
  email: Type.String(),
  existing_user: Type.Boolean({
    description:
      'true: the invitee signs in with their password (name is ignored); false: sets a name and password',
  }),
});

export const AcceptBody = Type.Object(
  {
    name: Type.String({ maxLength: 200, description: "The new user's name (ignored for an existing user)" }),
    password: Type.String({
      minLength: 1,
      maxLength: 1000,
      description: "A new user's password (at least 8 characters), or an existing user's own",
    }),
  },
  { additionalProperties: false },
);
