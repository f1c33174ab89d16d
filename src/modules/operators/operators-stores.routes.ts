import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type CursorCodec, type CursorScope, isCreatedKey } from '../../platform/http/cursor.js';
import { DataEnvelope, IdParams } from '../../platform/http/envelopes.js';
import { errorResponses } from '../../platform/http/error-responses.js';
import {
  DeletionAccepted,
  OperatorStoreDetail,
  OperatorStoreItem,
  OperatorStoreList,
  OperatorStoreListQuery,
  SuspendBody,
} from './operators.schemas.js';
import { storeDetail, storeItem } from './operators.serializers.js';
import type { OperatorsService } from './operators.service.js';

/** The platform's stores as operators see them; registered under the operator guard. */
export const operatorStoresRoutes: FastifyPluginAsyncTypebox<{
  operators: OperatorsService;
  cursors: CursorCodec;
}> = async (app, { operators, cursors }) => {
  const tags = ['Operator'];

  app.get(
    '/stores',
    {
      schema: {
        tags,
        operationId: 'listOperatorStores',
        summary: 'List the stores of the platform, newest first',
        description:
          'Stores being deleted are not listed. Figures come from counters kept as orders and products are written (one statement per page, whatever the number of orders).',
        querystring: OperatorStoreListQuery,
        response: { 200: OperatorStoreList },
      },
    },
    async (request) => {
      const { q, limit = 20, cursor } = request.query;
      // Bound to the search: a cursor of another search is refused (400).
      const scope: CursorScope = { storeId: 'platform', list: 'operator-stores', filters: { q } };
      const position = cursor === undefined ? undefined : cursors.open(cursor, scope, isCreatedKey);
      const page = await operators.listStores({ q, limit, after: position?.key });
      const last = page.rows.at(-1);
      const nextCursor =
        page.more && last
          ? cursors.seal(scope, {
              page: (position?.page ?? 1) + 1,
              key: { t: last.created_micros, i: last.id },
            })
          : null;
      return { data: page.rows.map(storeItem), next_cursor: nextCursor };
    },
  );

  app.get(
    '/stores/:id',
    {
      schema: {
        tags,
        operationId: 'getOperatorStore',
        summary: 'A store of the platform',
        params: IdParams,
        response: { 200: DataEnvelope(OperatorStoreDetail) },
      },
    },
    async (request) => ({ data: storeDetail(await operators.getStore(request.params.id)) }),
  );

  app.post(
    '/stores/:id/suspend',
    {
      schema: {
        tags,
        operationId: 'suspendStore',
        summary:
          'Suspend a store (its shop, storefront, API keys and sessions are refused; nothing is deleted)',
        params: IdParams,
        body: SuspendBody,
        response: { 200: DataEnvelope(OperatorStoreItem), ...errorResponses(409) },
      },
    },
    async (request) => ({
      data: storeItem(await operators.suspend(request.operator, request.params.id, request.body.reason)),
    }),
  );

  app.post(
    '/stores/:id/unsuspend',
    {
      schema: {
        tags,
        operationId: 'unsuspendStore',
        summary: 'Lift a suspension: the store works again as before',
        params: IdParams,
        response: { 200: DataEnvelope(OperatorStoreItem), ...errorResponses(409) },
      },
    },
    async (request) => ({
      data: storeItem(await operators.unsuspend(request.operator, request.params.id)),
    }),
  );

  app.delete(
    '/stores/:id',
    {
      schema: {
        tags,
        operationId: 'deleteStore',
        summary:
          'Delete a store: it leaves the list at once, its data and media are removed in the background',
        params: IdParams,
        response: { 202: DataEnvelope(DeletionAccepted), ...errorResponses(409) },
      },
    },
    async (request, reply) => {
      const accepted = await operators.requestDeletion(request.operator, request.params.id);
      return reply.code(202).send({ data: accepted });
    },
  );
};
