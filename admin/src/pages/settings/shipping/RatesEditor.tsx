import { Button, TextField } from '../../../components/ui';
import { newRate, type RateDraft } from './zone-form';

/**
 * A zone's rates, each with its conditions (contract §12): a rate is offered when every condition
 * it has holds for the order (subtotal after discounts, total weight), and costs nothing from its
 * "free from" amount. An empty condition is no condition.
 */
export function RatesEditor({
  rates,
  currency,
  onChange,
  errorOf,
}: {
  rates: RateDraft[];
  currency: string;
  onChange: (rates: RateDraft[]) => void;
  /** The API's message for a field of the rate at a position (`price`, `min_weight_grams`…). */
  errorOf: (index: number, field: string) => string | undefined;
}) {
  const update = (index: number, change: Partial<RateDraft>) =>
    onChange(rates.map((rate, i) => (i === index ? { ...rate, ...change } : rate)));
  return (
    <div className="stack">
      <h3>Rates</h3>
      {rates.length === 0 ? (
        <p className="hint">No rate: buyers in this zone cannot check out until it has one.</p>
      ) : null}
      {rates.map((rate, index) => {
        const field = (
          label: string,
          key: keyof RateDraft,
          apiField: string,
          extra: { hint?: string; inputMode?: 'decimal' | 'numeric'; placeholder?: string } = {},
        ) => (
          <TextField
            label={label}
            value={rate[key] ?? ''}
            inputMode={extra.inputMode ?? 'decimal'}
            placeholder={extra.placeholder}
            hint={extra.hint}
            onChange={(e) => update(index, { [key]: e.target.value })}
            error={errorOf(index, apiField)}
          />
        );
        return (
          <fieldset key={rate.key} className="rate stack-sm">
            <legend>Rate {index + 1}</legend>
            <div className="row">
              {field('Name', 'name', 'name', { placeholder: 'Standard' })}
              {field(`Price (${currency})`, 'price', 'price', { placeholder: '4.90' })}
              {field(`Free from (${currency})`, 'freeAbove', 'free_above', {
                placeholder: 'never',
                hint: 'Order subtotal from which this rate costs nothing',
              })}
            </div>
            <div className="row">
              {field(`Minimum subtotal (${currency})`, 'minSubtotal', 'min_subtotal')}
              {field(`Maximum subtotal (${currency})`, 'maxSubtotal', 'max_subtotal')}
            </div>
            <div className="row">
              {field('Minimum weight (g)', 'minWeight', 'min_weight_grams', { inputMode: 'numeric' })}
              {field('Maximum weight (g)', 'maxWeight', 'max_weight_grams', { inputMode: 'numeric' })}
            </div>
            <div className="row">
              {field('Delivery from (days)', 'daysMin', 'delivery_days_min', { inputMode: 'numeric' })}
              {field('Delivery to (days)', 'daysMax', 'delivery_days_max', { inputMode: 'numeric' })}
            </div>
            <div>
              <Button
                variant="link"
                aria-label={`Remove rate ${index + 1}${rate.name ? ` (${rate.name})` : ''}`}
                onClick={() => onChange(rates.filter((_, i) => i !== index))}
              >
                Remove rate
              </Button>
            </div>
          </fieldset>
        );
      })}
      <div>
        <Button onClick={() => onChange([...rates, newRate()])}>Add a rate</Button>
      </div>
    </div>
  );
}
