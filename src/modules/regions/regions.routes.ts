import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RegionsService } from './regions.service.js';
import { taxRegionsRoutes } from './tax-regions.routes.js';
import { zonesRoutes } from './zones.routes.js';

/** The merchant API of contract §12's zones and tax regions (/api/v1; settings:read / settings:write). */
export const regionsRoutes: FastifyPluginAsyncTypebox<{ regions: RegionsService }> = async (
  app,
  { regions },
) => {
  await app.register(zonesRoutes, { regions });
  await app.register(taxRegionsRoutes, { regions });
};
