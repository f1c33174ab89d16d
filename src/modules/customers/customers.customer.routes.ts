import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { DataEnvelope, IdParams } from '../../platform/http/envelopes.js';
import { notFound } from '../../platform/http/errors.js';
import { AddressCreateBody, CustomerProfile, ProfileUpdateBody, SavedAddress } from './customers.schemas.js';
import { addressForCustomer, profileForCustomer } from './customers.serializers.js';
import type { CustomersService } from './customers.service.js';

/** /api/customer: the signed-in customer's profile and saved addresses. */
export const customerAccountRoutes: FastifyPluginAsyncTypebox<{ customers: CustomersService }> = async (
  app,
  { customers },
) => {
  const tags = ['Customer account'];
  const who = (request: { ctx: { storeId: string; actor: { id: string } } }) =>
    [request.ctx.storeId, request.ctx.actor.id] as const;

  app.get(
    '/me',
    {
      schema: {
        tags,
        operationId: 'getCustomerProfile',
        summary: 'The signed-in customer',
        response: { 200: DataEnvelope(CustomerProfile) },
      },
    },
    async (request) => ({ data: profileForCustomer(await customers.profile(...who(request))) }),
  );

  app.put(
    '/update',
    {
      schema: {
        tags,
        operationId: 'updateCustomerProfile',
        summary: 'Update first name, last name or phone',
        body: ProfileUpdateBody,
        response: { 200: DataEnvelope(CustomerProfile) },
      },
    },
    async (request) => {
      const { firstName, lastName, phone } = request.body;
      const row = await customers.updateProfile(...who(request), {
        ...(firstName !== undefined ? { first_name: firstName } : {}),
        ...(lastName !== undefined ? { last_name: lastName } : {}),
        ...(phone !== undefined ? { phone } : {}),
      });
      return { data: profileForCustomer(row) };
    },
  );

  app.get(
    '/addresses',
    {
      schema: {
        tags,
        operationId: 'listCustomerAddresses',
        summary: 'Saved addresses, the default first',
        response: { 200: DataEnvelope(Type.Array(SavedAddress)) },
      },
    },
    async (request) => ({ data: (await customers.addresses(...who(request))).map(addressForCustomer) }),
  );

  app.post(
    '/addresses',
    {
      schema: {
        tags,
        operationId: 'createCustomerAddress',
        summary: 'Save an address (the first one, or one with isDefault, becomes the default)',
        body: AddressCreateBody,
        response: { 201: DataEnvelope(SavedAddress) },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const row = await customers.addAddress(...who(request), {
        line1: b.line1,
        line2: b.line2,
        city: b.city,
        region: b.region,
        postal_code: b.postalCode,
        country: b.country,
        phone: b.phone,
        is_default: b.isDefault,
      });
      return reply.code(201).send({ data: addressForCustomer(row) });
    },
  );

  app.delete(
    '/addresses/:id',
    {
      schema: {
        tags,
        operationId: 'deleteCustomerAddress',
        summary: 'Delete a saved address',
        params: IdParams,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      await customers.removeAddress(...who(request), request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.delete(
    '/addresses',
    {
      schema: {
        tags,
        operationId: 'deleteCustomerAddressByQuery',
        summary: 'Delete a saved address (id in the query string)',
        querystring: Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) }),
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      if (!request.query.id) throw notFound('address');
      await customers.removeAddress(...who(request), request.query.id);
      return reply.code(204).send(null);
    },
  );
};
