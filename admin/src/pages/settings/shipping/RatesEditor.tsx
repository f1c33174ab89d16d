import { Button, TextField } from '../../../components/ui';
import { newRate, type RateDraft } from './zone-form';

/**
 * A zone's rates, each with its conditions (contract §12): a rate is offered when every condition
 * it has holds for the order (subtotal after discounts, total weight), and costs nothing from its
 * "free from" amount. An empty bound is no bound. The delivery estimate is what the buyer is told.
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
          extra: { hint?: string; inputMode?: 'decimal'; placeholder?: string } = {},
        ) => (
          <TextField
            label={label}
            value={rate[key] ?? ''}
            inputMode={extra.inputMode}
            placeholder={extra.placeholder}
            hint={extra.hint}
            onChange={(e) => update(index, { [key]: e.target.value })}
            error={errorOf(index, apiField)}
          />
        );
        /** A condition's two bounds side by side (also on a phone), named by the group's legend. */
        const range = (
          legend: string,
          bounds: [string, keyof RateDraft, string, 'decimal' | 'numeric'][],
        ) => (
          <fieldset className="range">
            <legend>{legend}</legend>
            <div className="range-inputs">
              {bounds.map(([label, key, apiField, inputMode]) => (
                <TextField
                  key={key}
                  className="range-bound"
                  label={label}
                  value={rate[key] ?? ''}
                  inputMode={inputMode}
                  placeholder="any"
                  onChange={(e) => update(index, { [key]: e.target.value })}
                  error={errorOf(index, apiField)}
                />
              ))}
            </div>
          </fieldset>
        );
        return (
          <fieldset key={rate.key} className="rate stack-sm">
            <legend>Rate {index + 1}</legend>
            <div className="row">
              {field('Name', 'name', 'name', { placeholder: 'Standard' })}
              {field(`Price (${currency})`, 'price', 'price', { placeholder: '4.90', inputMode: 'decimal' })}
              {field(`Free from (${currency})`, 'freeAbove', 'free_above', {
                placeholder: 'never',
                inputMode: 'decimal',
                hint: 'Free at or above this subtotal',
              })}
            </div>
            <div className="conditions">
              {range(`Order subtotal (${currency})`, [
                ['From', 'minSubtotal', 'min_subtotal', 'decimal'],
                ['Up to', 'maxSubtotal', 'max_subtotal', 'decimal'],
              ])}
              {range('Weight (g)', [
                ['From', 'minWeight', 'min_weight_grams', 'numeric'],
                ['Up to', 'maxWeight', 'max_weight_grams', 'numeric'],
              ])}
              {range('Delivery (days)', [
                ['From', 'daysMin', 'delivery_days_min', 'numeric'],
                ['To', 'daysMax', 'delivery_days_max', 'numeric'],
              ])}
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
