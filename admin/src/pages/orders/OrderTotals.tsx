import type { Order } from '../../api/types';
import { taxLabel } from '../../lib/format';

/**
 * An order's totals: the shipping method by name, and the tax as the lines it was charged at (contract
 * §12: "VAT 19 %", "incl. VAT 19 %" when the prices contained it; an order without tax lines, as
 * before zones and tax regions, shows one Tax row).
 */
export function OrderTotals({ order: o, money }: { order: Order; money: (amount: number) => string }) {
  const taxLines = o.tax_lines;
  const included = o.taxes_included;
  return (
    <dl className="totals" data-testid="order-totals">
      <dt>Subtotal</dt>
      <dd>{money(o.subtotal)}</dd>
      <dt>Discount{o.coupon_code ? ` (${o.coupon_code})` : ''}</dt>
      <dd>−{money(o.discount_amount)}</dd>
      <dt>Shipping{o.shipping_method ? ` (${o.shipping_method.name})` : ''}</dt>
      <dd>{money(o.shipping_amount)}</dd>
      {taxLines.length ? (
        taxLines.map((line) => (
          <div className="totals-row" key={`${line.name}:${line.rate}`} data-testid="order-tax-line">
            <dt>{taxLabel(line.name, line.rate, included)}</dt>
            <dd>{money(line.amount)}</dd>
          </div>
        ))
      ) : (
        <>
          <dt>{included ? 'incl. tax' : 'Tax'}</dt>
          <dd>{money(o.tax_amount)}</dd>
        </>
      )}
      <dt className="strong">Total</dt>
      <dd className="strong" data-testid="order-total">
        {money(o.total)}
      </dd>
      <dt>Paid</dt>
      <dd>{money(o.amount_paid)}</dd>
      {o.amount_refunded > 0 ? (
        <>
          <dt>Refunded</dt>
          <dd data-testid="order-refunded">−{money(o.amount_refunded)}</dd>
        </>
      ) : null}
      <dt>Balance due</dt>
      <dd className={o.balance_due > 0 ? 'text-warn' : o.balance_due < 0 ? 'text-bad' : ''}>
        {money(o.balance_due)}
      </dd>
    </dl>
  );
}
