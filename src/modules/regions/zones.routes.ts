import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { DataEnvelope, IdParams, ListEnvelope, listEnvelope, pageOf } from '../../platform/http/envelopes.js';
import { errorResponses } from '../../platform/http/error-responses.js';
import { ifMatchOf, withEtag } from '../../platform/http/etag.js';
import { ShippingZone, ZoneCreateBody, ZoneListQuery, ZoneUpdateBody } from './regions.schemas.js';
import type { RegionsService } from './regions.service.js';

const tags = ['Shipping zones'];

/** /api/v1/shipping-zones (contract §12). */
export const zonesRoutes: FastifyPluginAsyncTypebox<{ regions: RegionsService }> = async (
  app,
  { regions },
) => {
  app.get(
    '/shipping-zones',
    {
      config: { scope: 'settings:read' },
      schema: {
        tags,
        operationId: 'listShippingZones',
        summary: 'List shipping zones with their countries and rates, newest first',
        querystring: ZoneListQuery,
        response: { 200: ListEnvelope(ShippingZone) },
      },
    },
    async (request) => {
      const page = pageOf(request.query);
      const { data, total } = await regions.listZones(request.ctx, page);
      return listEnvelope(data, page, total);
    },
  );

  app.post(
    '/shipping-zones',
    {
      config: { scope: 'settings:write' },
      schema: {
        tags,
        operationId: 'createShippingZone',
        summary: 'Create a shipping zone: its countries and rates',
        description:
          'A country stands in at most one zone of a store, and one zone may be `["*"]`, the rest of the world: 409 `conflict` naming the country otherwise. Country codes are ISO 3166-1 alpha-2, in any case (stored upper case). Amounts are decimal strings of the store currency.',
        body: ZoneCreateBody,
        response: { 201: DataEnvelope(ShippingZone), ...errorResponses(409) },
      },
    },
    async (request, reply) => {
      const zone = await regions.createZone(request.ctx, request.body);
      return reply.code(201).send({ data: withEtag(reply, zone) });
    },
  );

  app.get(
    '/shipping-zones/:id',
    {
      config: { scope: 'settings:read' },
      schema: {
        tags,
        operationId: 'getShippingZone',
        summary: 'Get a shipping zone',
        'x-etag': true,
        params: IdParams,
        response: { 200: DataEnvelope(ShippingZone) },
      },
    },
    async (request, reply) => ({
      data: withEtag(reply, await regions.getZone(request.ctx, request.params.id)),
    }),
  );

  app.patch(
    '/shipping-zones/:id',
    {
      config: { scope: 'settings:write' },
      schema: {
        tags,
        operationId: 'updateShippingZone',
        summary: 'Update a shipping zone',
        description:
          '`countries` replaces the list. `rates` replaces the list: a rate given with its `id` keeps it, one without is new, the rates left out are deleted; an `id` that is not a rate of this zone is 400.',
        params: IdParams,
        body: ZoneUpdateBody,
        response: { 200: DataEnvelope(ShippingZone), ...errorResponses(409, 412) },
      },
    },
    async (request, reply) => {
      const zone = await regions.updateZone(request.ctx, request.params.id, request.body, ifMatchOf(request));
      return { data: withEtag(reply, zone) };
    },
  );

  app.delete(
    '/shipping-zones/:id',
    {
      config: { scope: 'settings:write' },
      schema: {
        tags,
        operationId: 'deleteShippingZone',
        summary: 'Delete a shipping zone and its rates (orders keep their shipping method)',
        params: IdParams,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      await regions.removeZone(request.ctx, request.params.id);
      return reply.code(204).send(null);
    },
  );
};
