import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { cartForStorefront } from '../../modules/carts/index.js';
import type { PaymentMethod } from '../../modules/payments/index.js';
import { AppError } from '../../platform/http/errors.js';
import {
  type CartView,
  cartOfRequest,
  clearCartCookie,
  type Shopper,
  setReceiptCookie,
} from '../cart-session.js';
import { type DetailsErrors, type DetailsValues, detailsOfCart, parseDetails } from '../checkout-form.js';
import {
  COUNTRY_FIELD,
  notShipped,
  pricedByAddress,
  RATE_FIELD,
  refuses,
  shippingChoiceFor,
} from '../checkout-shipping.js';
import { formOf, isShopperError, reasonOf, textField } from '../forms.js';
import { CheckoutPage } from '../pages/checkout.js';
import { sendPage } from '../render.js';
import { type ShopContext, shopHref } from '../shop-context.js';
import type { ShopDeps } from '../shop-deps.js';
import { orderOfReceipt } from './order.routes.js';

/** The order the methods are listed in: the test card first where it is offered (development). */
const METHOD_ORDER: PaymentMethod[] = ['test_card', 'stripe', 'manual'];

/** Why placing the order was refused, in the shopper's words; nothing was placed in any case. */
function refusal(error: AppError): string {
  if (error.statusCode === 402)
    return 'Your card was declined. No order was placed and nothing was charged: try another card or payment method.';
  if (error.code === 'insufficient_stock') {
    const what = error.message.replace(/^not enough stock of /, '');
    return `We could not place your order: not enough stock of ${what}. Change the quantity in your cart and try again.`;
  }
  if (error.statusCode === 503)
    return 'Card payments cannot be reached just now, so the order was not placed. Try again in a moment or choose another payment method.';
  return `We could not place your order: ${reasonOf(error)}.`;
}

/**
 * Checkout: GET /checkout (details, then payment), POST /checkout/details (saves the e-mail and
 * address on the cart, which re-prices it), POST /checkout (completes the cart into an order and
 * sends the shopper to its confirmation, or to the card payment of a Stripe order).
 */
export async function checkoutRoutes(app: FastifyInstance, deps: ShopDeps) {
  const secure = deps.secureCookies;

  async function offeredMethods(shop: ShopContext): Promise<PaymentMethod[]> {
    const { methods } = await deps.payments.storefrontPayments(shop.store.id);
    return METHOD_ORDER.filter((m) => methods.includes(m) && (m !== 'test_card' || !shop.production));
  }

  async function renderCheckout(
    reply: FastifyReply,
    shop: ShopContext,
    shopper: Shopper,
    view: CartView,
    options: {
      details?: { values: DetailsValues; errors: DetailsErrors };
      /** The shipping option just posted, kept checked when it is one of the country's. */
      posted?: string;
      paymentError?: string;
      chosen?: { method: string; cardToken: string };
      status?: number;
    } = {},
  ) {
    const cart = cartForStorefront(view);
    const details = options.details ?? { values: detailsOfCart(cart), errors: {} };
    const shipping = await shippingChoiceFor(deps, shop, shopper, cart, details.values, options.posted);
    // A country the store does not ship to is said next to the country field, whatever the button.
    if (shipping?.refused) details.errors = { ...details.errors, country: shipping.refused };
    const page = (
      <CheckoutPage
        shop={shop}
        cart={cart}
        methods={await offeredMethods(shop)}
        details={details}
        shipping={shipping}
        byAddress={await pricedByAddress(deps, shop.store.id, cart)}
        paymentError={options.paymentError}
        chosen={options.chosen}
      />
    );
    return sendPage(reply, page, { status: options.status ?? 200, cache: 'private' });
  }

  /**
   * The form's first values: the cart's; for a signed-in customer whose cart has no details yet,
   * their profile and default address fill the empty fields.
   */
  async function startingDetails(shop: ShopContext, shopper: Shopper, view: CartView) {
    const cart = cartForStorefront(view);
    const values = detailsOfCart(cart);
    if (!shopper.customerId || (cart.email && cart.shippingAddress)) return values;
    const [profile, addresses] = await Promise.all([
      deps.customers.profile(shop.store.id, shopper.customerId).catch(() => undefined),
      deps.customers.addresses(shop.store.id, shopper.customerId),
    ]);
    const address = addresses.find((a) => a.is_default) ?? addresses[0];
    const known: DetailsValues = {
      email: profile?.email ?? '',
      firstName: profile?.first_name ?? '',
      lastName: profile?.last_name ?? '',
      phone: address?.phone ?? profile?.phone ?? '',
      line1: address?.line1 ?? '',
      line2: address?.line2 ?? '',
      city: address?.city ?? '',
      region: address?.region ?? '',
      postalCode: address?.postal_code ?? '',
      country: address?.country ?? '',
    };
    const merged = { ...values };
    for (const key of Object.keys(known) as (keyof DetailsValues)[]) merged[key] = values[key] || known[key];
    return merged;
  }

  const toCart = (reply: FastifyReply, shop: ShopContext) => reply.redirect(shopHref(shop, '/cart'), 303);
  const cartOf = (request: FastifyRequest, reply: FastifyReply) => cartOfRequest(request, reply, deps);

  app.get('/checkout', async (request, reply) => {
    const { shop, shopper, view } = await cartOf(request, reply);
    if (!view || view.lines.length === 0) return toCart(reply, shop);
    const values = await startingDetails(shop, shopper, view);
    return renderCheckout(reply, shop, shopper, view, { details: { values, errors: {} } });
  });

  /**
   * The details form. Its "Update shipping options" button redraws the page as typed with the
   * options of the country chosen, saving nothing (the way to see them without JavaScript); any
   * other submit saves the details and the option chosen on the cart, which re-prices it.
   */
  app.post('/checkout/details', async (request, reply) => {
    const { shop, shopper, view } = await cartOf(request, reply);
    if (!view || view.lines.length === 0) return toCart(reply, shop);
    const form = formOf(request);
    const { values, errors, update } = parseDetails(form);
    const posted = textField(form, 'shippingRateId') || undefined;
    if (textField(form, 'update') === 'shipping')
      return renderCheckout(reply, shop, shopper, view, { details: { values, errors: {} }, posted });
    if (!update)
      return renderCheckout(reply, shop, shopper, view, { details: { values, errors }, posted, status: 400 });
    const save = (shippingRateId: string | null) =>
      deps.carts.update(shopper.ctx, view.cart.id, { ...update, shippingRateId }, shopper.customerId);
    try {
      // A choice among another country's options (the country was changed with it): the cheapest.
      // Without a choice posted (the first post), null: the cheapest, not a choice made before.
      await save(posted ?? null).catch((error: unknown) => {
        if (posted && refuses(error, RATE_FIELD)) return save(null);
        throw error;
      });
    } catch (error) {
      if (!refuses(error, COUNTRY_FIELD)) throw error;
      return renderCheckout(reply, shop, shopper, view, {
        details: { values, errors: { country: notShipped(values.country) } },
        status: 400,
      });
    }
    return reply.redirect(shopHref(shop, '/checkout#payment'), 303);
  });

  app.post('/checkout', async (request, reply) => {
    const { shop, shopper, view } = await cartOf(request, reply);
    if (!view) {
      // A second click after the first completed (and cleared the cart's cookie): the same order.
      const placed = await orderOfReceipt(request, deps, shopper);
      if (placed)
        return reply.redirect(shopHref(shop, `/orders/${placed.order.order_number}/confirmation`), 303);
      return toCart(reply, shop);
    }
    if (view.lines.length === 0) return toCart(reply, shop);
    const form = formOf(request);
    const chosen = { method: textField(form, 'paymentMethod'), cardToken: textField(form, 'cardToken') };
    const methods = await offeredMethods(shop);
    const method = methods.find((m) => m === chosen.method);
    if (!method)
      return renderCheckout(reply, shop, shopper, view, {
        paymentError: 'Choose a payment method.',
        chosen,
        status: 400,
      });
    return complete(reply, shop, shopper, view, { method, cardToken: chosen.cardToken });
  });

  async function complete(
    reply: FastifyReply,
    shop: ShopContext,
    shopper: Shopper,
    view: CartView,
    chosen: { method: PaymentMethod; cardToken: string },
  ) {
    try {
      const result = await deps.carts.complete(
        shopper.ctx,
        view.cart.id,
        {
          paymentMethod: chosen.method,
          cardToken: chosen.method === 'test_card' ? chosen.cardToken : undefined,
        },
        shopper.customerId,
      );
      clearCartCookie(reply, shop, secure);
      setReceiptCookie(reply, shop, view.cart.id, secure);
      const number = result.placed.order.order_number;
      const next = result.payment ? 'pay' : 'confirmation';
      return reply.redirect(shopHref(shop, `/orders/${number}/${next}`), 303);
    } catch (error) {
      // 4xx: the shopper's to fix (declined card, stock); 503: Stripe unreachable, order released.
      const unavailable = error instanceof AppError && error.statusCode === 503;
      if (!(error instanceof AppError) || !(isShopperError(error) || unavailable)) throw error;
      const fresh = await deps.carts.get(shopper.ctx, view.cart.id, shopper.customerId);
      return renderCheckout(reply, shop, shopper, fresh, {
        paymentError: refusal(error),
        chosen: { method: chosen.method, cardToken: chosen.cardToken },
        status: error.statusCode,
      });
    }
  }
}
