import type { ShippingRate } from '../../../api/types';
import { formatMoney } from '../../../lib/money';

type Bound = string | number | null | undefined;
const given = (value: Bound): value is string | number =>
  value !== null && value !== undefined && value !== '';

/** "500 g", "2 kg", "2.5 kg". */
export function formatWeight(grams: number): string {
  return grams < 1000 ? `${grams} g` : `${grams / 1000} kg`;
}

function range(min: Bound, max: Bound, show: (v: string | number) => string): string | undefined {
  if (given(min) && given(max)) return `${show(min)}–${show(max)}`;
  if (given(min)) return `from ${show(min)}`;
  if (given(max)) return `up to ${show(max)}`;
  return undefined;
}

function days(min: Bound, max: Bound): string | undefined {
  if (given(min) && given(max) && Number(min) === Number(max))
    return `${min} ${Number(min) === 1 ? 'day' : 'days'}`;
  const text = range(min, max, String);
  return text && `${text} ${Number(given(max) ? max : min) === 1 ? 'day' : 'days'}`;
}

/** "Standard: €4.90, free from €50.00, orders €10.00–€100.00, up to 2 kg, 2–4 days". */
export function describeRate(rate: ShippingRate, currency: string): string {
  const money = (v: string | number) => formatMoney(v, currency);
  const subtotal = range(rate.min_subtotal, rate.max_subtotal, money);
  const weight = range(rate.min_weight_grams, rate.max_weight_grams, (g) => formatWeight(Number(g)));
  const parts = [
    money(rate.price),
    given(rate.free_above) ? `free from ${money(rate.free_above)}` : undefined,
    subtotal && `orders ${subtotal}`,
    weight,
    days(rate.delivery_days_min, rate.delivery_days_max),
  ].filter(Boolean);
  return `${rate.name}: ${parts.join(', ')}`;
}
