import { Type } from 'typebox';
import { CursorPagination, cursorQuery } from '../../platform/http/cursor.js';
import { Nullable, PageQuery } from '../../platform/http/envelopes.js';

export const AuditEntry = Type.Object({
  id: Type.String(),
  actor: Type.Object({
    type: Type.Union([Type.Literal('user'), Type.Literal('api_key'), Type.Literal('system')]),
    id: Nullable(Type.String({ description: 'The user or API key id; null for the system' })),
    name: Nullable(
      Type.String({ description: "The user's name (or e-mail) or the key's name, as it was then" }),
    ),
  }),
  action: Type.String({ description: '`resource.verb`, e.g. `order.cancel` (docs/audit-log.md lists them)' }),
  resource_type: Type.String({ description: 'Singular snake_case: `order`, `product`, `api_key`…' }),
  resource_id: Nullable(Type.String()),
  ip: Nullable(Type.String({ description: 'The client address (X-Forwarded-For when TRUST_PROXY is set)' })),
  created_at: Type.String({ format: 'date-time' }),
});

const Text = (description: string) =>
  Type.Optional(Type.String({ minLength: 1, maxLength: 200, description }));

export const AuditLogQuery = Type.Object({
  ...PageQuery,
  ...cursorQuery,
  actor_id: Text('Entries of this user or API key'),
  resource_type: Text('Entries about this kind of resource (`order`)'),
  resource_id: Text('Entries about this resource (with or without resource_type)'),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'Inclusive, ISO 8601' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'Exclusive, ISO 8601' })),
});

export const AuditLogPage = Type.Object({
  data: Type.Array(AuditEntry),
  next_cursor: Nullable(
    Type.String({ description: 'Pass as `cursor` for the next (older) page; null on the last' }),
  ),
  meta: Type.Object({ pagination: CursorPagination }),
});
