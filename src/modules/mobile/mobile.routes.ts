import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { DataEnvelope, StringEnum } from '../../platform/http/envelopes.js';
import type { MobileService } from './mobile.service.js';

const Preferences = Type.Object({
  orderUpdates: Type.Boolean(),
  promotions: Type.Boolean(),
  backInStock: Type.Boolean(),
});

const Device = Type.Object({
  id: Type.String(),
  token: Type.String(),
  platform: Type.String(),
  appVersion: Type.Union([Type.String(), Type.Null()]),
  deviceName: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});

/** /api/mobile: device registration and notification preferences of the signed-in customer. */
export const mobileRoutes: FastifyPluginAsyncTypebox<{ mobile: MobileService }> = async (app, { mobile }) => {
  const tags = ['Mobile'];

  app.post(
    '/device/register',
    {
      schema: {
        tags,
        operationId: 'registerDevice',
        summary: 'Register this device for push notifications (201 new, 200 already registered)',
        description:
          'Registering a token that is already known moves it to the signed-in customer: a token is never duplicated.',
        body: Type.Object(
          {
            token: Type.String({ minLength: 1, maxLength: 4096 }),
            platform: StringEnum(['ios', 'android', 'web']),
            appVersion: Type.Optional(Type.Union([Type.String({ maxLength: 50 }), Type.Null()])),
            deviceName: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])),
          },
          { additionalProperties: false },
        ),
        response: { 200: DataEnvelope(Device), 201: DataEnvelope(Device) },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const device = await mobile.registerDevice(request.ctx.storeId, request.ctx.actor.id, body);
      return reply.code(device.created ? 201 : 200).send({
        data: {
          id: device.id,
          token: body.token,
          platform: body.platform,
          appVersion: body.appVersion ?? null,
          deviceName: body.deviceName ?? null,
          createdAt: device.created_at.toISOString(),
          updatedAt: device.updated_at.toISOString(),
        },
      });
    },
  );

  app.get(
    '/notifications/preferences',
    {
      schema: {
        tags,
        operationId: 'getNotificationPreferences',
        summary: 'My notification preferences (all true until changed)',
        response: { 200: DataEnvelope(Preferences) },
      },
    },
    async (request) => ({ data: await mobile.preferences(request.ctx.storeId, request.ctx.actor.id) }),
  );

  app.put(
    '/notifications/preferences',
    {
      schema: {
        tags,
        operationId: 'updateNotificationPreferences',
        summary: 'Change my notification preferences (fields left out keep their value)',
        body: Type.Object(
          {
            orderUpdates: Type.Optional(Type.Boolean()),
            promotions: Type.Optional(Type.Boolean()),
            backInStock: Type.Optional(Type.Boolean()),
          },
          { additionalProperties: false },
        ),
        response: { 200: DataEnvelope(Preferences) },
      },
    },
    async (request) => ({
      data: await mobile.updatePreferences(request.ctx.storeId, request.ctx.actor.id, request.body),
    }),
  );
};
