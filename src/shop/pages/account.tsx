import type { orderSummaryForCustomer } from '../../modules/orders/index.js';
import {
  AccountForm,
  AccountLayout,
  Facts,
  type FieldSpec,
  formatDate,
  StatusPill,
} from '../components/account-layout.js';
import { formatMoney } from '../money.js';
import { type ShopContext, shopHref } from '../shop-context.js';

export interface AccountProfile {
  email: string;
  firstName: string | null;
  lastName: string | null;
  phone: string | null;
}

export type AccountOrderSummary = ReturnType<typeof orderSummaryForCustomer>;

export interface AccountPageData {
  profile: AccountProfile;
  orders: AccountOrderSummary[];
  page: number;
  pages: number;
  total: number;
  done?: string;
  /** A refused profile form: its message, and the values as typed. */
  profileError?: string;
  profileForm?: { firstName?: string; lastName?: string; phone?: string };
}

function OrderList({ shop, orders }: { shop: ShopContext; orders: AccountOrderSummary[] }) {
  return (
    <ul className="order-list">
      {orders.map((order) => (
        <li key={order.orderNumber} className="order-row">
          <div className="order-row__main">
            <a className="order-row__link" href={shopHref(shop, `/account/orders/${order.orderNumber}`)}>
              {`Order #${order.orderNumber}`}
            </a>
            <span className="muted">
              {`${formatDate(order.createdAt)} · ${order.itemCount} item${order.itemCount === 1 ? '' : 's'}`}
            </span>
          </div>
          <Facts
            className="order-row__facts"
            facts={[
              { label: 'Status', value: <StatusPill status={order.status} /> },
              { label: 'Payment', value: <StatusPill status={order.paymentStatus} /> },
              {
                label: 'Total',
                value: formatMoney(order.total, shop.store.currency),
                className: 'order-row__total',
              },
            ]}
          />
        </li>
      ))}
    </ul>
  );
}

function Pagination({ shop, page, pages }: { shop: ShopContext; page: number; pages: number }) {
  if (pages <= 1) return null;
  const href = (n: number) => shopHref(shop, n === 1 ? '/account' : `/account?page=${n}`);
  return (
    <nav className="pagination" aria-label="Order pages">
      {page > 1 ? (
        <a href={href(page - 1)} rel="prev">
          Newer orders
        </a>
      ) : (
        <span />
      )}
      <span className="muted">{`Page ${page} of ${pages}`}</span>
      {page < pages ? (
        <a href={href(page + 1)} rel="next">
          Older orders
        </a>
      ) : (
        <span />
      )}
    </nav>
  );
}

const PROFILE_FIELDS: (FieldSpec | FieldSpec[])[] = [
  [
    { name: 'firstName', label: 'First name', autoComplete: 'given-name', maxLength: 100 },
    { name: 'lastName', label: 'Last name', autoComplete: 'family-name', maxLength: 100 },
  ],
  { name: 'phone', label: 'Phone', type: 'tel', autoComplete: 'tel', maxLength: 40 },
];

function ProfileForm({ shop, data }: { shop: ShopContext; data: AccountPageData }) {
  const values = data.profileForm ?? {
    firstName: data.profile.firstName ?? '',
    lastName: data.profile.lastName ?? '',
    phone: data.profile.phone ?? '',
  };
  return (
    <AccountForm
      shop={shop}
      action="/account/profile"
      heading="Your details"
      idPrefix="profile"
      error={data.profileError}
      intro={<p className="muted">E-mail: {data.profile.email}</p>}
      rows={PROFILE_FIELDS}
      values={values}
      submit="Save details"
    />
  );
}

/** The account's home: the shopper's orders (newest first, paged) and their details. */
export function AccountPage({ shop, data }: { shop: ShopContext; data: AccountPageData }) {
  const name = [data.profile.firstName, data.profile.lastName].filter(Boolean).join(' ');
  return (
    <AccountLayout
      shop={shop}
      section="orders"
      title={name ? `Hello, ${name}` : 'Your account'}
      pageTitle="Your account"
      description="Your orders and details."
      email={data.profile.email}
      done={data.done}
    >
      <div className="account-home">
        <section className="card" aria-labelledby="account-orders">
          <h2 id="account-orders">
            Your orders {data.total > 0 ? <span className="muted">({data.total})</span> : null}
          </h2>
          {data.orders.length > 0 ? (
            <>
              <OrderList shop={shop} orders={data.orders} />
              <Pagination shop={shop} page={data.page} pages={data.pages} />
            </>
          ) : (
            <div className="empty">
              <p>{data.page > 1 ? 'No orders on this page.' : 'You have not placed an order yet.'}</p>
              <a className="button" href={shopHref(shop, '/products')}>
                Start shopping
              </a>
            </div>
          )}
        </section>
        <ProfileForm shop={shop} data={data} />
      </div>
    </AccountLayout>
  );
}
