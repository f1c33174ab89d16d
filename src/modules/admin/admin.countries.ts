import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { DataEnvelope } from '../../platform/http/envelopes.js';
import { notFound } from '../../platform/http/errors.js';
import { COUNTRIES, countryName, isCountryCode, subdivisionsOf } from '../../platform/iso3166.js';

const Place = Type.Object({
  code: Type.String({ description: 'ISO 3166-1 alpha-2 (a country) or ISO 3166-2 (a subdivision)' }),
  name: Type.String({ description: 'English name' }),
});
const Country = Type.Object({
  code: Type.String({ description: 'ISO 3166-1 alpha-2' }),
  name: Type.String(),
  subdivisions: Type.Array(Place, { description: 'ISO 3166-2 subdivisions, sorted by name' }),
});

/**
 * Reference data only changes with the `iso-3166` package, that is with a release: the browser may
 * keep it for a day (the dashboard asks once per page load anyway).
 */
const CACHE = 'private, max-age=86400';

/**
 * The dashboard's country and subdivision names (contract §12): the same list the API validates
 * codes against (platform/iso3166), so the settings' pickers never offer a code the API refuses and
 * the dashboard bundles no list of its own. Countries alone are small (about 9 KB); a country's
 * subdivisions are asked for when a tax region needs them (all of them together are about 190 KB).
 */
export const countriesRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['Admin'];

  app.get(
    '/countries',
    {
      schema: {
        tags,
        operationId: 'listCountries',
        summary: 'ISO 3166-1 countries with their English names, sorted by name',
        response: { 200: DataEnvelope(Type.Array(Place)) },
      },
    },
    async (_request, reply) => {
      reply.header('cache-control', CACHE);
      return { data: [...COUNTRIES] };
    },
  );

  app.get(
    '/countries/:code',
    {
      schema: {
        tags,
        operationId: 'getCountry',
        summary: 'A country with its ISO 3166-2 subdivisions (states, provinces, regions)',
        params: Type.Object({
          code: Type.String({ minLength: 2, maxLength: 2, description: 'ISO 3166-1 alpha-2' }),
        }),
        response: { 200: DataEnvelope(Country) },
      },
    },
    async (request, reply) => {
      const code = request.params.code.toUpperCase();
      if (!isCountryCode(code)) throw notFound('country');
      reply.header('cache-control', CACHE);
      return { data: { code, name: countryName(code), subdivisions: [...subdivisionsOf(code)] } };
    },
  );
};
