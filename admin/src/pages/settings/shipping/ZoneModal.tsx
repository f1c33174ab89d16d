import { useMemo, useState } from 'react';
import { ApiError, api } from '../../../api/client';
import type { Country, ShippingZone } from '../../../api/types';
import { CountryPicker } from '../../../components/CountryPicker';
import { ModalForm } from '../../../components/dialogs';
import { StaleNotice } from '../../../components/StaleNotice';
import { ErrorBanner, TextField } from '../../../components/ui';
import { useVersionedDraft } from '../../../components/useVersionedDraft';
import { zonePlaces } from '../../../lib/countries';
import { useCurrency } from '../../../session';
import { RatesEditor } from './RatesEditor';
import { type ZoneDraft, zoneBodyOf, zoneDraftOf } from './zone-form';

const COUNTRIES_ID = 'zone-countries';

/**
 * A zone's form: name, countries (typed and picked), rates. An edit sends only the changed fields
 * with If-Match (412: StaleNotice). Errors are in the banner and beside their fields; a country
 * another zone holds (409) is said under the country picker alone (the banner would say it twice
 * more), and the focus is put there, so a screen reader reads it with the field.
 */
export function ZoneModal({
  zone,
  countries,
  onClose,
  onSaved,
}: {
  zone?: ShippingZone;
  countries: Country[];
  onClose: () => void;
  onSaved: (zone: ShippingZone) => void;
}) {
  const currency = useCurrency();
  const { draft, set, stale, showLatest, save } = useVersionedDraft<ShippingZone, ZoneDraft>(
    zone && `/api/v1/shipping-zones/${zone.id}`,
    zone,
    zoneDraftOf,
  );
  const places = useMemo(() => zonePlaces(countries), [countries]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const apiError = error instanceof ApiError ? error : undefined;
  const conflict = apiError?.status === 409 ? apiError.message : undefined;

  const submit = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const saved = zone
        ? await save(zoneBodyOf)
        : (await api.post<{ data: ShippingZone }>('/api/v1/shipping-zones', zoneBodyOf(draft))).data;
      if (saved) onSaved(saved);
    } catch (reason) {
      setError(reason);
      if (reason instanceof ApiError && reason.status === 409) document.getElementById(COUNTRIES_ID)?.focus();
    } finally {
      setBusy(false);
    }
  };

  return (
    <ModalForm
      open
      wide
      title={zone ? `Edit ${zone.name}` : 'New shipping zone'}
      submitLabel={zone ? 'Save zone' : 'Create zone'}
      busy={busy}
      onClose={onClose}
      onSubmit={() => void submit()}
    >
      {/* A 409 is a country of another zone: said under the picker alone, where it is fixed. */}
      {conflict ? null : <ErrorBanner error={error} title="Could not save the zone" />}
      {stale ? (
        <StaleNotice what="zone" fields={stale.fields} onReload={() => showLatest(stale.latest)} />
      ) : null}
      <TextField
        label="Zone name"
        required
        value={draft.name}
        placeholder="Europe"
        onChange={(e) => set({ name: e.target.value })}
        error={apiError?.fieldError('name')}
      />
      <CountryPicker
        id={COUNTRIES_ID}
        label="Countries"
        places={places}
        value={draft.countries}
        onChange={(codes) => set({ countries: codes })}
        error={conflict ?? apiError?.fieldErrorWithin('countries')}
        hint="A country belongs to one zone. “Rest of the world” covers every country no other zone names."
      />
      <RatesEditor
        rates={draft.rates}
        currency={currency}
        onChange={(rates) => set({ rates })}
        errorOf={(index, field) => apiError?.fieldError(`rates.${index}.${field}`)}
      />
    </ModalForm>
  );
}
