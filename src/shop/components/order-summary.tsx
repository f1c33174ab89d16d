import { formatMoney } from '../money.js';

/** What the cart, the checkout and the order all show the same way (their fields share names). */
export interface TotalsData {
  currency: string;
  subtotal: number;
  discountAmount: number;
  couponCode: string | null;
  shippingAmount: number;
  taxAmount: number;
  total: number;
}

/** Subtotal, discount (with its coupon), shipping, tax and total, as a description list. */
export function Totals({ totals }: { totals: TotalsData }) {
  const money = (amount: number) => formatMoney(amount, totals.currency);
  return (
    <dl className="order-totals">
      <div>
        <dt>Subtotal</dt>
        <dd>{money(totals.subtotal)}</dd>
      </div>
      {totals.discountAmount > 0 ? (
        <div className="order-totals__discount">
          <dt>Discount{totals.couponCode ? ` (${totals.couponCode})` : ''}</dt>
          <dd>−{money(totals.discountAmount)}</dd>
        </div>
      ) : null}
      <div>
        <dt>Shipping</dt>
        <dd>{totals.shippingAmount === 0 ? 'Free' : money(totals.shippingAmount)}</dd>
      </div>
      <div>
        <dt>Tax</dt>
        <dd>{money(totals.taxAmount)}</dd>
      </div>
      <div className="order-totals__total">
        <dt>Total</dt>
        <dd>{money(totals.total)}</dd>
      </div>
    </dl>
  );
}

export interface SummaryLine {
  id: string;
  name: string;
  variantTitle: string | null;
  quantity: number;
  total: number;
  image?: string | null;
}

/** The lines of a cart or an order in a compact list: image, name, variant, quantity, line total. */
export function SummaryLines({ lines, currency }: { lines: SummaryLine[]; currency: string }) {
  return (
    <ul className="summary-lines">
      {lines.map((line) => (
        <li key={line.id}>
          {line.image ? (
            <img src={line.image} alt="" width={56} height={56} loading="lazy" />
          ) : (
            <span className="summary-lines__placeholder" aria-hidden="true" />
          )}
          <span className="summary-lines__name">
            {line.name}
            {line.variantTitle ? <span className="muted"> · {line.variantTitle}</span> : null}
            <span className="muted"> × {line.quantity}</span>
          </span>
          <span className="summary-lines__total">{formatMoney(line.total, currency)}</span>
        </li>
      ))}
    </ul>
  );
}

/** A shipping address as lines of text. */
export function AddressLines({
  address,
  countryName,
}: {
  address: {
    firstName?: string | null;
    lastName?: string | null;
    line1: string;
    line2?: string | null;
    city: string;
    region?: string | null;
    postalCode: string;
    country: string;
    phone?: string | null;
  };
  countryName: (code: string) => string;
}) {
  const name = [address.firstName, address.lastName].filter(Boolean).join(' ');
  const lines = [
    name,
    address.line1,
    address.line2,
    `${[address.city, address.region].filter(Boolean).join(', ')} ${address.postalCode}`,
    countryName(address.country),
    address.phone,
  ].filter((line): line is string => Boolean(line));
  return (
    <address className="address">
      {lines.map((line, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a fixed list of lines
        <span key={index}>{line}</span>
      ))}
    </address>
  );
}
