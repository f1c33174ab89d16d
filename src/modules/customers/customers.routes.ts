import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { DataEnvelope, IdParams, ListEnvelope, listEnvelope, pageOf } from '../../platform/http/envelopes.js';
import { Customer, CustomerListQuery } from './customers.schemas.js';
import { customerForMerchant } from './customers.serializers.js';
import type { CustomersService } from './customers.service.js';

export const customersRoutes: FastifyPluginAsyncTypebox<{ customers: CustomersService }> = async (
  app,
  { customers },
) => {
  app.get(
    '/customers',
    {
      config: { scope: 'customers:read' },
      schema: {
        tags: ['Customers'],
        operationId: 'listCustomers',
        summary: 'List customers, newest first',
        querystring: CustomerListQuery,
        response: { 200: ListEnvelope(Customer) },
      },
    },
    async (request) => {
      const page = pageOf(request.query);
      const { rows, total, decimals } = await customers.list(request.ctx, page, { q: request.query.q });
      return listEnvelope(
        rows.map((row) => customerForMerchant(row, decimals)),
        page,
        total,
      );
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
