import { useState } from 'react';
import { ApiError, api } from '../../../api/client';
import type { Country, TaxRegion } from '../../../api/types';
import { ModalForm } from '../../../components/dialogs';
import { StaleNotice } from '../../../components/StaleNotice';
import { Checkbox, ErrorBanner, SelectField, TextField } from '../../../components/ui';
import { useSubdivisions } from '../../../components/useCountries';
import { useVersionedDraft } from '../../../components/useVersionedDraft';
import { type TaxDraft, taxBodyOf, taxDraftOf } from './tax-form';

/**
 * A tax region's form: the country, the whole country or one of its ISO 3166-2 subdivisions (both
 * lists from the server), the tax's name and rate, and whether shipping is taxed. An edit sends only
 * the changed fields with If-Match; a country and region that already have a rate is a 409, said
 * in the banner and under the field the API names (the region, or the country for a whole country).
 */
export function TaxRegionModal({
  region,
  countries,
  onClose,
  onSaved,
}: {
  region?: TaxRegion;
  countries: Country[];
  onClose: () => void;
  onSaved: (region: TaxRegion) => void;
}) {
  const { draft, set, stale, showLatest, save } = useVersionedDraft<TaxRegion, TaxDraft>(
    region && `/api/v1/tax-regions/${region.id}`,
    region,
    taxDraftOf,
  );
  const subdivisions = useSubdivisions(draft.country);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const apiError = error instanceof ApiError ? error : undefined;

  const submit = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const saved = region
        ? await save(taxBodyOf)
        : (await api.post<{ data: TaxRegion }>('/api/v1/tax-regions', taxBodyOf(draft))).data;
      if (saved) onSaved(saved);
    } catch (reason) {
      setError(reason);
    } finally {
      setBusy(false);
    }
  };

  return (
    <ModalForm
      open
      title={region ? `Edit ${region.name} (${region.region ?? region.country})` : 'New tax region'}
      submitLabel={region ? 'Save tax region' : 'Create tax region'}
      busy={busy}
      onClose={onClose}
      onSubmit={() => void submit()}
    >
      <ErrorBanner error={error} title="Could not save the tax region" />
      {stale ? (
        <StaleNotice what="tax region" fields={stale.fields} onReload={() => showLatest(stale.latest)} />
      ) : null}
      <div className="row">
        <SelectField
          label="Country"
          required
          value={draft.country}
          onChange={(e) => set({ country: e.target.value, region: '' })}
          options={[
            { value: '', label: 'Choose a country' },
            ...countries.map((c) => ({ value: c.code, label: c.name })),
          ]}
          error={apiError?.fieldError('country')}
        />
        <SelectField
          label="Region"
          value={draft.region}
          disabled={!draft.country}
          onChange={(e) => set({ region: e.target.value })}
          options={[
            { value: '', label: 'Whole country' },
            ...subdivisions.map((s) => ({ value: s.code, label: `${s.name} (${s.code})` })),
            // An edit opens before the subdivisions arrive: the region's own code stays chosen.
            ...(draft.region && !subdivisions.some((s) => s.code === draft.region)
              ? [{ value: draft.region, label: draft.region }]
              : []),
          ]}
          error={apiError?.fieldError('region')}
          hint="A state's or province's rate applies instead of its country's."
        />
      </div>
      <div className="row">
        <TextField
          label="Tax name"
          required
          value={draft.name}
          placeholder="VAT, Sales tax"
          onChange={(e) => set({ name: e.target.value })}
          error={apiError?.fieldError('name')}
          hint="Shown to buyers and on orders"
        />
        <TextField
          label="Rate (%)"
          required
          inputMode="decimal"
          value={draft.rate}
          placeholder="19"
          onChange={(e) => set({ rate: e.target.value })}
          error={apiError?.fieldError('rate')}
          hint="Up to 3 decimals, such as 7.25"
        />
      </div>
      <Checkbox
        label="Tax shipping too"
        hint="(as most EU countries and some US states do)"
        checked={draft.shippingTaxable}
        onChange={(e) => set({ shippingTaxable: e.target.checked })}
      />
    </ModalForm>
  );
}
