import type { FastifyInstance } from 'fastify';
import { orderForCustomer, orderSummaryForCustomer } from '../../modules/orders/index.js';
import { notFound } from '../../platform/http/errors.js';
import { customerOrSignIn, doneMessage, fieldOf, formOf } from '../account-forms.js';
import { AccountPage, type AccountPageData } from '../pages/account.js';
import { AccountOrderPage } from '../pages/account-order.js';
import { sendPage } from '../render.js';
import { shopHref, shopOf } from '../shop-context.js';
import type { ShopDeps } from '../shop-deps.js';

const ORDERS_PER_PAGE = 10;
const MAX_PAGE = 10_000;

/** `?page=3` as a page number; anything else is the first page. */
function pageNumber(query: unknown): number {
  const raw = (query as { page?: unknown } | undefined)?.page;
  const page = typeof raw === 'string' && /^\d{1,5}$/.test(raw) ? Number(raw) : 1;
  return Math.min(Math.max(page, 1), MAX_PAGE);
}

/** The signed-in shopper's account home (orders and details) and each of their orders. */
export async function accountRoutes(app: FastifyInstance, deps: ShopDeps) {
  async function accountData(storeId: string, customerId: string, page: number): Promise<AccountPageData> {
    const [profile, orders] = await Promise.all([
      deps.customers.profile(storeId, customerId),
      deps.orders.listForCustomer(storeId, customerId, { page, limit: ORDERS_PER_PAGE }),
    ]);
    return {
      profile: {
        email: profile.email,
        firstName: profile.first_name,
        lastName: profile.last_name,
        phone: profile.phone,
      },
      orders: orders.rows.map(orderSummaryForCustomer),
      page,
      pages: Math.max(1, Math.ceil(orders.total / ORDERS_PER_PAGE)),
      total: orders.total,
    };
  }

  app.get('/account', async (request, reply) => {
    const shop = shopOf(request);
    const customer = await customerOrSignIn(request, reply, shop, deps, '/account');
    if (!customer) return reply;
    const data = await accountData(shop.store.id, customer.customerId, pageNumber(request.query));
    data.done = doneMessage(request.query);
    return sendPage(reply, <AccountPage shop={shop} data={data} />, { cache: 'private' });
  });

  app.post('/account/profile', async (request, reply) => {
    const shop = shopOf(request);
    const customer = await customerOrSignIn(request, reply, shop, deps, '/account');
    if (!customer) return reply;
    const form = formOf(request);
    const values = {
      firstName: fieldOf(form, 'firstName'),
      lastName: fieldOf(form, 'lastName'),
      phone: fieldOf(form, 'phone'),
    };
    const tooLong =
      (values.firstName?.length ?? 0) > 100 || (values.lastName?.length ?? 0) > 100
        ? 'Names can be at most 100 characters long.'
        : (values.phone?.length ?? 0) > 40
          ? 'The phone number can be at most 40 characters long.'
          : undefined;
    if (tooLong) {
      const data = await accountData(shop.store.id, customer.customerId, 1);
      data.profileError = tooLong;
      data.profileForm = values;
      return sendPage(reply, <AccountPage shop={shop} data={data} />, { status: 400, cache: 'private' });
    }
    // A blank field clears the value: the form always sends all three.
    await deps.customers.updateProfile(shop.store.id, customer.customerId, {
      first_name: values.firstName ?? null,
      last_name: values.lastName ?? null,
      phone: values.phone ?? null,
    });
    return reply.redirect(shopHref(shop, '/account?done=profile'), 303);
  });

  app.get('/account/orders/:orderNumber', async (request, reply) => {
    const shop = shopOf(request);
    const raw = (request.params as { orderNumber: string }).orderNumber.replace(/^#/, '');
    const customer = await customerOrSignIn(
      request,
      reply,
      shop,
      deps,
      /^\d{1,15}$/.test(raw) ? `/account/orders/${raw}` : '/account',
    );
    if (!customer) return reply;
    if (!/^\d{1,15}$/.test(raw)) throw notFound('order');
    // Another customer's order is not found, like one that does not exist (the service scopes it).
    const details = await deps.orders.getForCustomer(shop.store.id, customer.customerId, Number(raw));
    return sendPage(reply, <AccountOrderPage shop={shop} order={orderForCustomer(details)} />, {
      cache: 'private',
    });
  });
}
