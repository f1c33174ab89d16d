import type { orderForCustomer } from '../../modules/orders/index.js';
import { countryName } from '../../platform/iso3166.js';
import { webUrlOf } from '../../platform/web-url.js';
import { AccountLayout, Facts, formatDate, StatusPill } from '../components/account-layout.js';
import { AddressLines, Totals } from '../components/order-summary.js';
import { formatMoney } from '../money.js';
import { type ShopContext, shopHref } from '../shop-context.js';

export type AccountOrder = ReturnType<typeof orderForCustomer>;

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
        // A web address only (never a `javascript:` or other scheme).
        const link = webUrlOf(shipment.trackingUrl);
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
  return (
    <AccountLayout
      shop={shop}
      section="orders"
      title={`Order #${order.orderNumber}`}
      description="One of your orders."
      email={order.email}
    >
      <p>
        <a href={shopHref(shop, '/account')}>← All your orders</a>
      </p>
      <Facts
        className="order-status"
        facts={[
          { label: 'Placed', value: formatDate(order.createdAt) },
          { label: 'Status', value: <StatusPill status={order.status} /> },
          { label: 'Payment', value: <StatusPill status={order.paymentStatus} /> },
          { label: 'Delivery', value: <StatusPill status={order.fulfillmentStatus} /> },
        ]}
      />
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
          <Totals totals={order} />
        </section>
        <div className="order-detail__side">
          <section className="card" aria-labelledby="order-shipping">
            <h2 id="order-shipping">Shipping</h2>
            <Shipments order={order} />
          </section>
          {address ? (
            <section className="card" aria-labelledby="order-address">
              <h2 id="order-address">Delivery address</h2>
              <AddressLines address={{ ...address, phone: null }} countryName={countryName} />
            </section>
          ) : null}
        </div>
      </div>
    </AccountLayout>
  );
}
