import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { DataEnvelope, IdParams, ListEnvelope, listEnvelope, pageOf } from '../../platform/http/envelopes.js';
import { errorResponses } from '../../platform/http/error-responses.js';
import { ifMatchOf, withEtag } from '../../platform/http/etag.js';
import {
  TaxRegion,
  TaxRegionCreateBody,
  TaxRegionListQuery,
  TaxRegionUpdateBody,
} from './regions.schemas.js';
import type { RegionsService } from './regions.service.js';

const tags = ['Tax regions'];

/** /api/v1/tax-regions (contract §12). */
export const taxRegionsRoutes: FastifyPluginAsyncTypebox<{ regions: RegionsService }> = async (
  app,
  { regions },
) => {
  app.get(
    '/tax-regions',
    {
      config: { scope: 'settings:read' },
      schema: {
        tags,
        operationId: 'listTaxRegions',
        summary: 'List tax regions, newest first',
        querystring: TaxRegionListQuery,
        response: { 200: ListEnvelope(TaxRegion) },
      },
    },
    async (request) => {
      const page = pageOf(request.query);
      const { data, total } = await regions.listTaxRegions(request.ctx, page, {
        country: request.query.country,
      });
      return listEnvelope(data, page, total);
    },
  );

  app.post(
    '/tax-regions',
    {
      config: { scope: 'settings:write' },
      schema: {
        tags,
        operationId: 'createTaxRegion',
        summary: 'Create a tax region: a rate for a country, or for one of its subdivisions',
        description:
          'One tax region per country and region (409 `conflict` otherwise). `region` is an ISO 3166-2 subdivision of `country`, written "US-CA" or "CA" in any case, stored as "US-CA"; null or absent for the whole country. `rate` is a percentage with up to 3 decimals.',
        body: TaxRegionCreateBody,
        response: { 201: DataEnvelope(TaxRegion), ...errorResponses(409) },
      },
    },
    async (request, reply) => {
      const region = await regions.createTaxRegion(request.ctx, request.body);
      return reply.code(201).send({ data: withEtag(reply, region) });
    },
  );

  app.get(
    '/tax-regions/:id',
    {
      config: { scope: 'settings:read' },
      schema: {
        tags,
        operationId: 'getTaxRegion',
        summary: 'Get a tax region',
        'x-etag': true,
        params: IdParams,
        response: { 200: DataEnvelope(TaxRegion) },
      },
    },
    async (request, reply) => ({
      data: withEtag(reply, await regions.getTaxRegion(request.ctx, request.params.id)),
    }),
  );

  app.patch(
    '/tax-regions/:id',
    {
      config: { scope: 'settings:write' },
      schema: {
        tags,
        operationId: 'updateTaxRegion',
        summary: 'Update a tax region',
        description:
          'A new `country` keeps the region unless one is given; it must be a subdivision of that country.',
        params: IdParams,
        body: TaxRegionUpdateBody,
        response: { 200: DataEnvelope(TaxRegion), ...errorResponses(409, 412) },
      },
    },
    async (request, reply) => {
      const region = await regions.updateTaxRegion(
        request.ctx,
        request.params.id,
        request.body,
        ifMatchOf(request),
      );
      return { data: withEtag(reply, region) };
    },
  );

  app.delete(
    '/tax-regions/:id',
    {
      config: { scope: 'settings:write' },
      schema: {
        tags,
        operationId: 'deleteTaxRegion',
        summary: 'Delete a tax region (orders keep their tax lines)',
        params: IdParams,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      await regions.removeTaxRegion(request.ctx, request.params.id);
      return reply.code(204).send(null);
    },
  );
};
