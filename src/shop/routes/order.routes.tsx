import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type OrderDetails, orderForCustomer } from '../../modules/orders/index.js';
import { notFound } from '../../platform/http/errors.js';
import { receiptOf, type Shopper, shopperOf } from '../cart-session.js';
import { isNotFound } from '../forms.js';
import { ConfirmationPage, PayPage } from '../pages/confirmation.js';
import { sendPage } from '../render.js';
import { shopHref, shopOf, shopUrl } from '../shop-context.js';
import type { ShopDeps } from '../shop-deps.js';

const orNone = (error: unknown) => {
  if (isNotFound(error)) return undefined;
  throw error;
};

/**
 * The order this browser just placed: the receipt cookie holds the id of the cart that became it
 * (an unguessable token, like the cart's cookie before it), and the cart names its order.
 */
export async function orderOfReceipt(
  request: FastifyRequest,
  deps: ShopDeps,
  shopper: Shopper,
): Promise<OrderDetails | undefined> {
  const receipt = receiptOf(request);
  if (!receipt || receipt.length > 100) return undefined;
  const view = await deps.carts.get(shopper.ctx, receipt).catch(orNone);
  if (!view?.cart.order_id) return undefined;
  return deps.orders.get(shopper.ctx, view.cart.order_id).catch(orNone);
}

/**
 * An order shown to this browser: the one its receipt names, or one of the signed-in customer's.
 * Anyone else's, or an unknown number, is a 404 (docs/decisions.md, "Shop order confirmation").
 */
async function visibleOrder(request: FastifyRequest, deps: ShopDeps, shopper: Shopper, number: string) {
  if (!/^\d{1,9}$/.test(number)) throw notFound('order');
  const receipt = await orderOfReceipt(request, deps, shopper);
  if (receipt && String(receipt.order.order_number) === number) return receipt;
  const own = shopper.customerId
    ? await deps.orders.getForCustomer(shopper.ctx.storeId, shopper.customerId, Number(number)).catch(orNone)
    : undefined;
  if (!own) throw notFound('order');
  return own;
}

/** The order confirmation, and the card payment of an order waiting for it (Stripe). */
export async function orderRoutes(app: FastifyInstance, deps: ShopDeps) {
  app.get('/orders/:orderNumber/confirmation', async (request, reply) => {
    const shop = shopOf(request);
    const shopper = await shopperOf(request, reply, shop, deps);
    const { orderNumber } = request.params as { orderNumber: string };
    const placed = await visibleOrder(request, deps, shopper, orderNumber);
    // Stripe sends the buyer back here with `redirect_status` once the card form is done.
    const redirect = (request.query as { redirect_status?: unknown }).redirect_status;
    const productIds = [...new Set(placed.lines.flatMap((line) => line.product_id ?? []))];
    const products = await deps.products.storefrontSummaries(shop.store, productIds);
    const page = (
      <ConfirmationPage
        shop={shop}
        order={orderForCustomer(placed)}
        images={new Map(products.map((p) => [p.id, p.image]))}
        stripeRedirect={typeof redirect === 'string' ? redirect : undefined}
      />
    );
    return sendPage(reply, page, { cache: 'private' });
  });

  app.get('/orders/:orderNumber/pay', async (request, reply) => {
    const shop = shopOf(request);
    const shopper = await shopperOf(request, reply, shop, deps);
    const { orderNumber } = request.params as { orderNumber: string };
    const placed = await visibleOrder(request, deps, shopper, orderNumber);
    const confirmation = `/orders/${placed.order.order_number}/confirmation`;
    const { payment } = await deps.checkout.placed(shopper.ctx, placed.order.id);
    // Paid, cancelled, or not a card order: nothing to pay here.
    if (!payment) return reply.redirect(shopHref(shop, confirmation), 303);
    const page = (
      <PayPage
        shop={shop}
        order={orderForCustomer(placed)}
        payment={{
          clientSecret: payment.clientSecret,
          publishableKey: payment.publishableKey,
          returnUrl: shopUrl(shop, confirmation),
        }}
      />
    );
    return sendPage(reply, page, { cache: 'private' });
  });
}
