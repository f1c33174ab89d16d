import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { DataEnvelope } from '../../platform/http/envelopes.js';
import { errorResponses } from '../../platform/http/error-responses.js';
import { forbidden } from '../../platform/http/errors.js';
import { isForeignOrigin, type TrustedOrigins } from '../../platform/http/same-origin.js';
import { type AdminService, adminSessionCookie } from '../admin/index.js';
import type { SignupService } from './signup.service.js';

const Email = Type.String({ minLength: 3, maxLength: 254 });
const StoreRef = Type.Object({ id: Type.String(), slug: Type.String(), name: Type.String() });

/**
 * /api/admin/signup…: self-service sign-up (no session yet). Its writes refuse a foreign Origin as
 * the dashboard's sign-in does: a form on another site must not create an account and sign the
 * browser in to it.
 */
export const signupRoutes: FastifyPluginAsyncTypebox<{
  signup: SignupService;
  admin: AdminService;
  trustedOrigins: TrustedOrigins;
  secureCookies: boolean;
}> = async (app, { signup, admin, trustedOrigins, secureCookies }) => {
  const tags = ['Sign-up'];
  const sameSiteOnly = async (request: FastifyRequest) => {
    if (isForeignOrigin(request, trustedOrigins)) {
      throw forbidden('Cross-site sign-up refused: sign up from the dashboard');
    }
  };

  app.get(
    '/signup',
    {
      schema: {
        tags,
        operationId: 'getSignupStatus',
        security: [],
        summary: 'Whether self-service sign-up is open (SIGNUP=open)',
        response: { 200: DataEnvelope(Type.Object({ open: Type.Boolean() })) },
      },
    },
    async () => ({ data: { open: signup.open } }),
  );

  app.post(
    '/signup',
    {
      schema: {
        tags,
        operationId: 'requestSignup',
        security: [],
        summary:
          'Start a sign-up: e-mail a 6-digit code to the address (the same answer for a registered one)',
        description:
          'The code is valid 15 minutes and allows 5 wrong tries. At most 5 requests per e-mail and 30 per client IP per 15 minutes (429). 403 when SIGNUP=closed, or from a foreign Origin.',
        body: Type.Object(
          {
            email: Email,
            password: Type.String({ minLength: 8, maxLength: 1000 }),
            store_name: Type.String({ minLength: 1, maxLength: 100 }),
            currency: Type.Optional(
              Type.String({ minLength: 3, maxLength: 3, description: 'ISO 4217; default USD' }),
            ),
            timezone: Type.Optional(
              Type.String({ minLength: 1, maxLength: 64, description: 'IANA; default UTC' }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          202: DataEnvelope(Type.Object({ sent: Type.Literal(true) })),
          ...errorResponses(403, 429),
        },
      },
      onRequest: sameSiteOnly,
    },
    async (request, reply) => {
      await signup.request(request.body, request.ip);
      return reply.code(202).send({ data: { sent: true as const } });
    },
  );

  app.post(
    '/signup/verify',
    {
      schema: {
        tags,
        operationId: 'verifySignup',
        security: [],
        summary:
          'Confirm the address with the code: creates the store and its owner, signs in (emporium_admin cookie)',
        description:
          'A wrong or expired code is 401; after 5 wrong tries the code is dead (429: sign up again). At most 60 verifications per client IP per 15 minutes. 409 if the address got an account meanwhile.',
        body: Type.Object(
          { email: Email, code: Type.String({ pattern: '^\\d{6}$' }) },
          { additionalProperties: false },
        ),
        response: {
          201: DataEnvelope(Type.Object({ store: StoreRef })),
          ...errorResponses(401, 403, 409, 429),
        },
      },
      onRequest: sameSiteOnly,
    },
    async (request, reply) => {
      const { store, user } = await signup.verify(request.body, request.ip);
      const session = await admin.openSession(user.id, store.slug);
      reply.header('set-cookie', adminSessionCookie(session.token, session.expiresAt, secureCookies));
      return reply.code(201).send({ data: { store: { id: store.id, slug: store.slug, name: store.name } } });
    },
  );
};
