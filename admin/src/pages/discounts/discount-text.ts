import type { Discount } from '../../api/types';
import { formatMoney } from '../../lib/money';

/** ISO → the value of a datetime-local input (local time), and back. */
export function toLocalInput(iso: string | null): string {
  if (!iso) return '';
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}
export function fromLocalInput(value: string): string | null {
  return value ? new Date(value).toISOString() : null;
}

/** "12.5% off", "$5.00 off", "Free shipping". */
export function describeDiscount(d: Pick<Discount, 'type' | 'value'>, currency: string): string {
  if (d.type === 'percentage') return `${d.value}% off`;
  if (d.type === 'fixed_amount') return `${formatMoney(d.value, currency)} off`;
  return 'Free shipping';
}
