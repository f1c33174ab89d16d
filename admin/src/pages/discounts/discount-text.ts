import type { Discount } from '../../api/types';
import { formatMoney } from '../../lib/money';

/** "12.5% off", "$5.00 off", "Free shipping". */
export function describeDiscount(d: Pick<Discount, 'type' | 'value'>, currency: string): string {
  if (d.type === 'percentage') return `${d.value}% off`;
  if (d.type === 'fixed_amount') return `${formatMoney(d.value, currency)} off`;
  return 'Free shipping';
}
