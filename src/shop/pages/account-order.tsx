import type { orderForCustomer } from '../../modules/orders/index.js';
import { AccountLayout, formatDate, StatusPill } from '../components/account-layout.js';
import { Frame } from '../components/frame.js';
import { formatMoney } from '../money.js';
import { type ShopContext, shopHref } from '../shop-context.js';

export type AccountOrder = ReturnType<typeof orderForCustomer>;

/** A merchant's tracking link, when it is a web address (never a `javascript:` or other scheme). */
function webUrl(value: string | null): string | undefined {
  if (!value) return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

function Shipments({ order }: { order: AccountOrder }) {
  if (order.shipments.length === 0)
    return (
      <p className="muted">
        {order.status === 'cancelled' ? 'This order was cancelled.' : 'Not shipped yet. We will e-mail you.'}
      </p>
    );
  return (
    <ul className="shipment-list">
      {order.shipments.map((shipment, i) => {
        const link = webUrl(shipment.trackingUrl);
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: shipments have no id of their own; the list is fixed
          <li key={i} className="shipment">
            <p>
              <strong>Shipped {formatDate(shipment.shippedAt)}</strong>
              {shipment.carrier ? ` with ${shipment.carrier}` : null}
            </p>
            {shipment.trackingNumber ? (
              <p>
                Tracking number: <span className="mono">{shipment.trackingNumber}</span>
              </p>
            ) : null}
            {link ? (
              <p>
                <a className="button button--secondary" href={link} rel="noopener noreferrer" target="_blank">
                  Track your parcel<span className="visually-hidden"> (opens in a new tab)</span>
                </a>
              </p>
            ) : null}
          </li>
        );
      })}
    </ul>
  );
}

/** One of the shopper's orders: items, totals, where it goes, and its shipments with tracking. */
export function AccountOrderPage({ shop, order }: { shop: ShopContext; order: AccountOrder }) {
  const money = (amount: number) => formatMoney(amount, order.currency);
  const address = order.shippingAddress;
  const totals: [string, number][] = [
    ['Subtotal', order.subtotal],
    ...(order.discountAmount > 0
      ? [
          [`Discount${order.couponCode ? ` (${order.couponCode})` : ''}`, -order.discountAmount] as [
            string,
            number,
          ],
        ]
      : []),
    ['Shipping', order.shippingAmount],
    ['Tax', order.taxAmount],
  ];
  return (
    <Frame
      shop={shop}
      meta={{ title: `Order #${order.orderNumber}`, description: 'One of your orders.', noindex: true }}
    >
      <AccountLayout shop={shop} section="orders" title={`Order #${order.orderNumber}`} email={order.email}>
        <p>
          <a href={shopHref(shop, '/account')}>← All your orders</a>
        </p>
        <dl className="order-status">
          <div>
            <dt>Placed</dt>
            <dd>{formatDate(order.createdAt)}</dd>
          </div>
          <div>
            <dt>Status</dt>
            <dd>
              <StatusPill status={order.status} />
            </dd>
          </div>
          <div>
            <dt>Payment</dt>
            <dd>
              <StatusPill status={order.paymentStatus} />
            </dd>
          </div>
          <div>
            <dt>Delivery</dt>
            <dd>
              <StatusPill status={order.fulfillmentStatus} />
            </dd>
          </div>
        </dl>
        <div className="order-detail">
          <section className="card" aria-labelledby="order-items">
            <h2 id="order-items">Items</h2>
            <ul className="line-items">
              {order.lineItems.map((line) => (
                <li key={line.id}>
                  <span className="line-items__name">
                    {line.name}
                    {line.variantTitle ? <span className="muted"> · {line.variantTitle}</span> : null}
                    <span className="muted line-items__qty">
                      {line.quantity} × {money(line.price)}
                    </span>
                  </span>
                  <span className="line-items__total">{money(line.total)}</span>
                </li>
              ))}
            </ul>
            <dl className="totals">
              {totals.map(([label, amount]) => (
                <div key={label}>
                  <dt>{label}</dt>
                  <dd>{money(amount)}</dd>
                </div>
              ))}
              <div className="totals__grand">
                <dt>Total</dt>
                <dd>{money(order.total)}</dd>
              </div>
              {order.amountRefunded > 0 ? (
                <div>
                  <dt>Refunded</dt>
                  <dd>{money(order.amountRefunded)}</dd>
                </div>
              ) : null}
            </dl>
          </section>
          <div className="order-detail__side">
            <section className="card" aria-labelledby="order-shipping">
              <h2 id="order-shipping">Shipping</h2>
              <Shipments order={order} />
            </section>
            {address ? (
              <section className="card" aria-labelledby="order-address">
                <h2 id="order-address">Delivery address</h2>
                <address>
                  {[address.firstName, address.lastName].filter(Boolean).join(' ') || null}
                  {address.firstName || address.lastName ? <br /> : null}
                  {address.line1}
                  <br />
                  {address.line2 ? (
                    <>
                      {address.line2}
                      <br />
                    </>
                  ) : null}
                  {`${address.city}${address.region ? `, ${address.region}` : ''} ${address.postalCode}`}
                  <br />
                  {address.country}
                </address>
              </section>
            ) : null}
          </div>
        </div>
      </AccountLayout>
    </Frame>
  );
}
