import { formatMoney } from '../money.js';

/** A tax of the address, as the pricing path names it: "VAT", "19" (a percentage), its amount. */
export interface TaxLineData {
  name: string;
  rate: string;
  amount: number;
}

/** What the cart, the checkout and the order all show the same way (their fields share names). */
export interface TotalsData {
  currency: string;
  subtotal: number;
  discountAmount: number;
  couponCode: string | null;
  shippingAmount: number;
  taxAmount: number;
  total: number;
  /** The shipping rate chosen (stores with zones); null or absent: the store's flat rate. */
  shippingMethod?: { name: string } | null;
  /** The taxes of the address (stores with tax regions); empty or absent: one "Tax" row. */
  taxLines?: TaxLineData[];
  /** Whether the prices contain the taxes (then they are shown under the total, not added). */
  taxesIncluded?: boolean;
  /** Orders only: what was refunded of them. */
  amountRefunded?: number;
}

/**
 * "VAT 19 %" (a no-break space keeps the number and its sign together). The store-wide rate of a
 * store without tax regions is one line the pricing path names "Tax": it stays the row "Tax" the
 * shop has always shown.
 */
export const taxLabel = (line: TaxLineData) =>
  line.name === 'Tax' ? 'Tax' : `${line.name} ${line.rate}\u00a0%`;

/** What shipping and tax say before the address they are priced for is known. */
export const BY_ADDRESS = 'Calculated from your address';

/**
 * Subtotal, discount (with its coupon), shipping (with its method), the taxes and the total, as a
 * description list; taxes that prices include follow the total as "incl. VAT 19 %", not added to it.
 * `byAddress`: the store prices shipping and tax by destination and none is known yet, so neither
 * is shown as an amount (0 would read as free shipping).
 */
export function Totals({ totals, byAddress = false }: { totals: TotalsData; byAddress?: boolean }) {
  const money = (amount: number) => formatMoney(amount, totals.currency);
  const taxLines = totals.taxLines ?? [];
  const included = Boolean(totals.taxesIncluded) && taxLines.length > 0;
  const shipping = totals.shippingAmount === 0 ? 'Free' : money(totals.shippingAmount);
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
        <dt>
          Shipping
          {totals.shippingMethod ? (
            <span className="order-totals__method"> ({totals.shippingMethod.name})</span>
          ) : null}
        </dt>
        <dd>{byAddress ? BY_ADDRESS : shipping}</dd>
      </div>
      {taxLines.length === 0 ? (
        byAddress && totals.taxesIncluded ? null : (
          <div>
            <dt>Tax</dt>
            <dd>{byAddress ? BY_ADDRESS : money(totals.taxAmount)}</dd>
          </div>
        )
      ) : included ? null : (
        taxLines.map((line) => (
          <div key={taxLabel(line)}>
            <dt>{taxLabel(line)}</dt>
            <dd>{money(line.amount)}</dd>
          </div>
        ))
      )}
      <div className="order-totals__total">
        <dt>Total</dt>
        <dd>{money(totals.total)}</dd>
      </div>
      {included
        ? taxLines.map((line) => (
            <div key={taxLabel(line)} className="order-totals__included">
              <dt>incl. {taxLabel(line)}</dt>
              <dd>{money(line.amount)}</dd>
            </div>
          ))
        : null}
      {totals.amountRefunded ? (
        <div>
          <dt>Refunded</dt>
          <dd>{money(totals.amountRefunded)}</dd>
        </div>
      ) : null}
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
