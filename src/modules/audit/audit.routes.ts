import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type CursorCodec, cursorList } from '../../platform/http/cursor.js';
import { errorResponses } from '../../platform/http/error-responses.js';
import { isUuid } from '../../platform/ids.js';
import { AuditLogPage, AuditLogQuery } from './audit.schemas.js';
import { auditEntryForMerchant } from './audit.serializers.js';
import type { AuditLog } from './audit.service.js';

const isIdKey = (key: unknown): key is string => typeof key === 'string' && isUuid(key);

export const auditRoutes: FastifyPluginAsyncTypebox<{ auditLog: AuditLog; cursors: CursorCodec }> = async (
  app,
  { auditLog, cursors },
) => {
  app.get(
    '/audit-log',
    {
      config: { scope: 'settings:read' },
      schema: {
        tags: ['Audit log'],
        operationId: 'listAuditLog',
        summary: "The store's audit log, newest first",
        description:
          'One entry per write through /api/v1, /api/admin and the dashboard (sign-in and sign-out are not recorded), kept 365 days. Filters combine; `next_cursor` (also in `meta.pagination`) continues the walk.',
        querystring: AuditLogQuery,
        response: { 200: AuditLogPage, ...errorResponses(400) },
      },
    },
    async (request) => {
      const { actor_id, resource_type, resource_id, from, to } = request.query;
      const page = cursorList(cursors, 'audit-log', request.ctx.storeId, request.query, isIdKey);
      const result = await auditLog.list(request.ctx, page, {
        actorId: actor_id,
        resourceType: resource_type,
        resourceId: resource_id,
        from: from === undefined ? undefined : new Date(from),
        to: to === undefined ? undefined : new Date(to),
      });
      const envelope = page.envelope({
        data: result.rows.map(auditEntryForMerchant),
        total: result.total,
        more: result.more,
        lastKey: result.rows.at(-1)?.id,
      });
      return { ...envelope, next_cursor: envelope.meta.pagination.next_cursor };
    },
  );
};
