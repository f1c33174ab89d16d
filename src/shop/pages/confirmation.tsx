import type { orderForCustomer } from '../../modules/orders/index.js';
import { countryName } from '../../platform/iso3166.js';
import { Frame } from '../components/frame.js';
import { AddressLines, SummaryLines, Totals } from '../components/order-summary.js';
import { formatMoney } from '../money.js';
import { type ShopContext, shopHref } from '../shop-context.js';

export type ShopOrder = ReturnType<typeof orderForCustomer>;

/** What the buyer is told about the money: only what is true of the order now. */
function paymentNotice(order: ShopOrder, stripeRedirect?: string): { kind: string; text: string } {
  if (order.status === 'cancelled')
    return {
      kind: 'error',
      text:
        order.cancelReason === 'payment_failed' || order.cancelReason === 'payment_expired'
          ? 'This order was cancelled because its payment did not go through. Nothing was charged.'
          : 'This order was cancelled.',
    };
  if (order.paymentStatus === 'paid') return { kind: 'success', text: 'Payment received. Thank you!' };
  if (order.paymentStatus === 'refunded') return { kind: 'info', text: 'This order was refunded.' };
  if (order.paymentStatus === 'partially_refunded')
    return { kind: 'info', text: 'Part of this order was refunded.' };
  if (order.paymentMethod === 'stripe')
    return {
      kind: 'info',
      text:
        stripeRedirect === 'succeeded' || stripeRedirect === 'processing'
          ? 'Your card payment is being confirmed by Stripe. Reload this page in a moment to see it marked as paid.'
          : 'This order waits for your card payment.',
    };
  return {
    kind: 'info',
    text: `Your order is placed and waits for your payment of ${formatMoney(order.balanceDue, order.currency)}, as arranged with the shop.`,
  };
}

const PAYMENT_STATUS: Record<string, string> = {
  unpaid: 'Awaiting payment',
  pending: 'Awaiting payment',
  partially_paid: 'Partly paid',
  refund_due: 'Refund due',
  paid: 'Paid',
  refunded: 'Refunded',
  partially_refunded: 'Partially refunded',
};

/** The order just placed (or one of the signed-in customer's): number, lines, totals, address. */
export function ConfirmationPage({
  shop,
  order,
  images,
  stripeRedirect,
}: {
  shop: ShopContext;
  order: ShopOrder;
  /** Product id → its picture now (orders keep no pictures). */
  images: ReadonlyMap<string, string | null>;
  stripeRedirect?: string;
}) {
  const notice = paymentNotice(order, stripeRedirect);
  const awaitingCard =
    order.paymentMethod === 'stripe' && order.status === 'pending' && order.paymentStatus === 'pending';
  return (
    <Frame
      shop={shop}
      meta={{
        title: `Order #${order.orderNumber}`,
        description: `Your order #${order.orderNumber} at ${shop.store.name}.`,
        noindex: true,
      }}
    >
      <section className="confirmation">
        <p className="confirmation__kicker">Order #{order.orderNumber}</p>
        <h1>{order.status === 'cancelled' ? 'Order cancelled' : 'Thank you for your order'}</h1>
        <div className={`notice notice--${notice.kind}`} role="status">
          <p>{notice.text}</p>
          {awaitingCard && stripeRedirect === undefined ? (
            <p>
              <a href={shopHref(shop, `/orders/${order.orderNumber}/pay`)}>Pay now</a>
            </p>
          ) : null}
        </div>
        <div className="confirmation__grid">
          <section aria-labelledby="confirmation-items" className="summary-card">
            <h2 id="confirmation-items">Items</h2>
            <SummaryLines
              lines={order.lineItems.map((line) => ({
                ...line,
                image: images.get(line.productId ?? '') ?? null,
              }))}
              currency={order.currency}
            />
            <Totals totals={order} />
          </section>
          <div className="confirmation__side">
            <section aria-labelledby="confirmation-payment">
              <h2 id="confirmation-payment">Payment</h2>
              <p>
                {order.paymentMethod === 'stripe' && order.paymentStatus === 'pending'
                  ? 'Card payment pending'
                  : (PAYMENT_STATUS[order.paymentStatus] ?? order.paymentStatus)}
              </p>
            </section>
            {order.shippingAddress ? (
              <section aria-labelledby="confirmation-address">
                <h2 id="confirmation-address">Shipping to</h2>
                <AddressLines address={order.shippingAddress} countryName={countryName} />
              </section>
            ) : null}
            <section aria-labelledby="confirmation-contact">
              <h2 id="confirmation-contact">Contact</h2>
              <p>{order.email}</p>
              <p className="muted">
                Keep your order number. Sign in to <a href={shopHref(shop, '/account')}>your account</a> with
                this e-mail address to follow the order and its shipment.
              </p>
            </section>
          </div>
        </div>
        <p>
          <a className="button" href={shopHref(shop, '/products')}>
            Continue shopping
          </a>
        </p>
      </section>
    </Frame>
  );
}

/** Stripe's Payment Element for an order waiting for its card payment (client island checkout.ts). */
export function PayPage({
  shop,
  order,
  payment,
}: {
  shop: ShopContext;
  order: ShopOrder;
  payment: { clientSecret: string; publishableKey: string; returnUrl: string };
}) {
  return (
    <Frame
      shop={shop}
      meta={{
        title: `Pay for order #${order.orderNumber}`,
        description: `Card payment for order #${order.orderNumber}.`,
        noindex: true,
        islands: ['checkout'],
      }}
    >
      <section className="pay">
        <p className="confirmation__kicker">Order #{order.orderNumber}</p>
        <h1>Pay {formatMoney(order.balanceDue, order.currency)}</h1>
        <p className="muted">
          Your order is reserved for you while you pay. Your card details go to Stripe, never to this shop.
        </p>
        <form
          id="stripe-payment"
          className="pay__form summary-card"
          data-publishable-key={payment.publishableKey}
          data-client-secret={payment.clientSecret}
          data-return-url={payment.returnUrl}
        >
          <div id="payment-element" className="pay__element">
            <p className="muted pay__loading">Loading the secure card form…</p>
          </div>
          <noscript>
            <p className="notice notice--error">
              Card payments need JavaScript: turn it on to pay, or place a new order with another payment
              method.
            </p>
          </noscript>
          <div id="payment-message" className="field-error" role="alert" />
          <button type="submit" className="button--wide" disabled>
            Pay {formatMoney(order.balanceDue, order.currency)}
          </button>
        </form>
        <p>
          <a href={shopHref(shop, `/orders/${order.orderNumber}/confirmation`)}>See the order</a>
        </p>
      </section>
    </Frame>
  );
}
