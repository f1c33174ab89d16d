import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { sessionCookieHeader } from '../../platform/http/cookies.js';
import { DataEnvelope } from '../../platform/http/envelopes.js';
import { errorResponses } from '../../platform/http/error-responses.js';
import { forbidden } from '../../platform/http/errors.js';
import { ADMIN_COOKIE } from '../../platform/http/merchant-auth.js';
import { isForeignOrigin, type TrustedOrigins } from '../../platform/http/same-origin.js';
import { AdminSession, adminSessionBody } from '../admin/index.js';
import { AcceptBody, InvitationPreview, TokenParams } from './team.schemas.js';
import type { TeamService } from './team.service.js';

/**
 * The invitee's side under /api/admin, without a session: what the link is for, and accepting it
 * (which signs in). An unknown, used, revoked or expired token is 404, whichever it is.
 */
export const invitationRoutes: FastifyPluginAsyncTypebox<{
  team: TeamService;
  trustedOrigins: TrustedOrigins;
  secureCookies: boolean;
}> = async (app, { team, trustedOrigins, secureCookies }) => {
  const tags = ['Admin'];

  app.get(
    '/invitations/:token',
    {
      schema: {
        tags,
        operationId: 'getStaffInvitation',
        security: [],
        summary: 'The invitation behind a link: the store, the address, and whether its user exists',
        params: TokenParams,
        response: { 200: DataEnvelope(InvitationPreview) },
      },
    },
    async (request) => ({ data: await team.describeInvitation(request.params.token) }),
  );

  app.post(
    '/invitations/:token/accept',
    {
      schema: {
        tags,
        operationId: 'acceptStaffInvitation',
        security: [],
        summary: 'Accept an invitation and sign in (sets the emporium_admin cookie)',
        description:
          "A new user sets a name and a password (at least 8 characters); an existing user (the invitation's e-mail) gives their password, counted by the sign-in limits. The link works once.",
        params: TokenParams,
        body: AcceptBody,
        response: { 201: DataEnvelope(AdminSession), ...errorResponses(401, 403, 409, 429) },
      },
      // As sign-in: a form on another site must not sign the browser in to an account of its choosing.
      onRequest: async (request) => {
        if (isForeignOrigin(request, trustedOrigins))
          throw forbidden('Cross-site sign-in refused: accept from the dashboard');
      },
    },
    async (request, reply) => {
      const session = await team.accept(request.params.token, request.body, request.ip);
      reply.header(
        'set-cookie',
        sessionCookieHeader(ADMIN_COOKIE, session.token, {
          expiresAt: session.expiresAt,
          sameSite: 'Strict',
          secure: secureCookies,
        }),
      );
      return reply.code(201).send({ data: adminSessionBody(session.view) });
    },
  );
};
