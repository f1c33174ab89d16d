import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { DataEnvelope, IdParams, pageQuery } from '../../platform/http/envelopes.js';
import { errorResponses } from '../../platform/http/error-responses.js';
import {
  InventoryAdjustmentBody,
  InventoryAdjustmentRecord,
  InventoryAdjustmentResult,
  InventoryLevel,
  InventoryQuery,
} from './inventory.schemas.js';
import type { InventoryService } from './inventory.service.js';

export const inventoryRoutes: FastifyPluginAsyncTypebox<{ inventory: InventoryService }> = async (
  app,
  { inventory },
) => {
  app.get(
    '/inventory/:id',
    {
      config: { scope: 'inventory:read' },
      schema: {
        tags: ['Inventory'],
        operationId: 'getInventory',
        summary: 'Stock level of a product (with its variants) or of a variant',
        params: IdParams,
        querystring: InventoryQuery,
        response: { 200: DataEnvelope(InventoryLevel) },
      },
    },
    async (request) => ({
      data: await inventory.get(request.ctx, request.params.id, request.query.type ?? 'product'),
    }),
  );

  app.patch(
    '/inventory/:id',
    {
      config: { scope: 'inventory:write' },
      schema: {
        tags: ['Inventory'],
        operationId: 'adjustInventory',
        summary: 'Adjust a stock level by a delta, atomically',
        description:
          'Applies `adjustment` atomically (concurrent adjustments never lose an update). Tracked stock cannot go below zero (409 insufficient_stock). A product with variants is adjusted through its variants; its level is their sum.',
        params: IdParams,
        body: InventoryAdjustmentBody,
        response: { 200: DataEnvelope(InventoryAdjustmentResult), ...errorResponses(409) },
      },
    },
    async (request) => ({
      data: await inventory.adjust(request.ctx, request.params.id, {
        type: request.body.type ?? 'product',
        adjustment: request.body.adjustment,
        reason: request.body.reason,
      }),
    }),
  );

  app.get(
    '/inventory/:id/adjustments',
    {
      config: { scope: 'inventory:read' },
      schema: {
        tags: ['Inventory'],
        operationId: 'listInventoryAdjustments',
        summary: "History of a product's stock changes (the product and its variants), newest first",
        params: IdParams,
        querystring: Type.Object({ limit: pageQuery({ defaultLimit: 50 }).limit }),
        response: { 200: DataEnvelope(Type.Array(InventoryAdjustmentRecord)) },
      },
    },
    async (request) => {
      const rows = await inventory.history(request.ctx, request.params.id, request.query.limit ?? 50);
      return { data: rows.map((r) => ({ ...r, created_at: r.created_at.toISOString() })) };
    },
  );
};
