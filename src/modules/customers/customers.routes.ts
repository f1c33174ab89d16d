import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  type CursorCodec,
  CursorListEnvelope,
  cursorList,
  isCreatedKey,
} from '../../platform/http/cursor.js';
import { DataEnvelope, IdParams } from '../../platform/http/envelopes.js';
import { Customer, CustomerListQuery } from './customers.schemas.js';
import { customerForMerchant } from './customers.serializers.js';
import type { CustomersService } from './customers.service.js';

export const customersRoutes: FastifyPluginAsyncTypebox<{
  customers: CustomersService;
  cursors: CursorCodec;
}> = async (app, { customers, cursors }) => {
  app.get(
    '/customers',
    {
      config: { scope: 'customers:read' },
      schema: {
        tags: ['Customers'],
        operationId: 'listCustomers',
        summary: 'List customers, newest first',
        querystring: CustomerListQuery,
        response: { 200: CursorListEnvelope(Customer) },
      },
    },
    async (request) => {
      const page = cursorList(cursors, 'customers', request.ctx.storeId, request.query, isCreatedKey);
      const { rows, decimals, ...rest } = await customers.list(request.ctx, page, { q: request.query.q });
      return page.envelope({ data: rows.map((row) => customerForMerchant(row, decimals)), ...rest });
    },
  );

  app.get(
    '/customers/:id',
    {
      config: { scope: 'customers:read' },
      schema: {
        tags: ['Customers'],
        operationId: 'getCustomer',
        summary: 'Get a customer',
        params: IdParams,
        response: { 200: DataEnvelope(Customer) },
      },
    },
    async (request) => {
      const { row, decimals } = await customers.get(request.ctx, request.params.id);
      return { data: customerForMerchant(row, decimals) };
    },
  );
};
