import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { DataEnvelope, IdParams } from '../../platform/http/envelopes.js';
import { errorResponses } from '../../platform/http/error-responses.js';
import { Invitation, InvitationBody, Member, PermissionsBody, UserIdParams } from './team.schemas.js';
import { invitationBody, memberBody } from './team.serializers.js';
import type { TeamService } from './team.service.js';

/**
 * The store's team under /api/admin (the dashboard's session), owners only (contract §14). The admin
 * module registers these behind its sign-in (adminRoutes' signedInRoutes).
 */
export const teamRoutes: FastifyPluginAsyncTypebox<{ team: TeamService }> = async (app, { team }) => {
  const tags = ['Admin'];

  app.get(
    '/staff',
    {
      config: { ownerOnly: true },
      schema: {
        tags,
        operationId: 'listStaff',
        summary: "The store's members: owners and staff with their permissions",
        response: { 200: DataEnvelope(Type.Array(Member)) },
      },
    },
    async (request) => ({ data: (await team.listMembers(request.ctx.storeId)).map(memberBody) }),
  );

  app.patch(
    '/staff/:userId',
    {
      config: { ownerOnly: true, audit: { action: 'staff.update', resourceType: 'staff' } },
      schema: {
        tags,
        operationId: 'updateStaffPermissions',
        summary: "Set a staff member's permissions (takes effect on their next request)",
        description: "An owner's permissions cannot be set (409): an owner has every scope.",
        params: UserIdParams,
        body: PermissionsBody,
        response: { 200: DataEnvelope(Member), ...errorResponses(409) },
      },
    },
    async (request) => {
      const { storeId } = request.ctx;
      return {
        data: memberBody(
          await team.updatePermissions(storeId, request.params.userId, request.body.permissions),
        ),
      };
    },
  );

  app.delete(
    '/staff/:userId',
    {
      config: { ownerOnly: true, audit: { action: 'staff.remove', resourceType: 'staff' } },
      schema: {
        tags,
        operationId: 'removeStaff',
        summary: "End a member's membership and their sessions on this store, at once",
        description: "The store's last owner cannot be removed (409).",
        params: UserIdParams,
        response: { 204: Type.Null(), ...errorResponses(409) },
      },
    },
    async (request, reply) => {
      await team.removeMember(request.ctx.storeId, request.params.userId);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/staff/invitations',
    {
      config: { ownerOnly: true, audit: { action: 'staff.invite', resourceType: 'staff_invitation' } },
      schema: {
        tags,
        operationId: 'inviteStaff',
        summary: 'Invite a staff member by e-mail (a link valid 7 days, usable once)',
        description:
          'The link `PUBLIC_URL/admin/invite/{token}` is e-mailed to the address and never returned. An address that already belongs to a member is 409; at most 50 invitations per store per hour (429).',
        body: InvitationBody,
        response: { 201: DataEnvelope(Invitation), ...errorResponses(409, 429) },
      },
    },
    async (request, reply) => {
      const invitation = await team.invite(request.ctx, request.body);
      return reply.code(201).send({ data: invitationBody(invitation) });
    },
  );

  app.get(
    '/staff/invitations',
    {
      config: { ownerOnly: true },
      schema: {
        tags,
        operationId: 'listStaffInvitations',
        summary: 'Pending invitations (neither accepted, revoked nor expired), newest first',
        response: { 200: DataEnvelope(Type.Array(Invitation)) },
      },
    },
    async (request) => ({
      data: (await team.listInvitations(request.ctx.storeId)).map(invitationBody),
    }),
  );

  app.delete(
    '/staff/invitations/:id',
    {
      config: {
        ownerOnly: true,
        audit: { action: 'staff.revoke_invitation', resourceType: 'staff_invitation' },
      },
      schema: {
        tags,
        operationId: 'revokeStaffInvitation',
        summary: 'Revoke a pending invitation: its link no longer works',
        params: IdParams,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      await team.revokeInvitation(request.ctx.storeId, request.params.id);
      return reply.code(204).send(null);
    },
  );
};
