import { useMemo, useState } from 'react';
import { api, type ListResult } from '../../../api/client';
import type { TaxRegion } from '../../../api/types';
import { Allowed } from '../../../components/access';
import { useConfirm } from '../../../components/dialogs';
import {
  Button,
  Card,
  Empty,
  ErrorBanner,
  Loading,
  Notice,
  PageHeader,
  Pagination,
} from '../../../components/ui';
import { useCountries, useSubdivisionNames } from '../../../components/useCountries';
import { useResource } from '../../../components/useResource';
import { namer } from '../../../lib/countries';
import { taxLabel } from '../../../lib/format';
import { SettingsTabs } from '../SettingsTabs';
import { PricesIncludeTax } from './PricesIncludeTax';
import { TaxRegionModal } from './TaxRegionModal';
import { sortTaxRegions } from './tax-form';

/**
 * Settings → Taxes (contract §12): a rate per country and per state or province, and whether the
 * store's prices include tax. Without any tax region, the general settings' one tax rate applies.
 */
export function TaxesPage() {
  const confirm = useConfirm();
  const [page, setPage] = useState(1);
  const regions = useResource(
    (signal) => api.get<ListResult<TaxRegion>>('/api/v1/tax-regions', { page, limit: 100 }, signal),
    [page],
  );
  const countries = useCountries();
  const countryName = useMemo(() => namer(countries.countries), [countries.countries]);
  const list = regions.data?.data;
  const subdivisionName = useSubdivisionNames(
    (list ?? []).filter((r) => r.region !== null).map((r) => r.country),
  );
  const sorted = useMemo(() => list && sortTaxRegions(list, countryName), [list, countryName]);
  const [editing, setEditing] = useState<TaxRegion | 'new'>();
  const [notice, setNotice] = useState<string>();
  const [error, setError] = useState<unknown>();

  const where = (r: TaxRegion) =>
    r.region ? `${subdivisionName(r.region)}, ${countryName(r.country)}` : countryName(r.country);

  const remove = async (r: TaxRegion) => {
    const ok = await confirm({
      title: `Delete ${r.name} for ${where(r)}?`,
      message: r.region
        ? 'Buyers there are then taxed at their country’s rate, if it has one. Orders already placed keep their tax.'
        : 'Buyers there then pay no tax, unless their state or province has its own rate. Orders already placed keep their tax.',
      confirmLabel: 'Delete tax region',
      danger: true,
    });
    if (!ok) return;
    setError(undefined);
    try {
      await api.delete(`/api/v1/tax-regions/${r.id}`);
      setNotice(`${r.name} for ${where(r)} was deleted.`);
      regions.reload();
    } catch (reason) {
      setError(reason);
    }
  };

  return (
    <div className="stack-lg">
      <PageHeader
        title="Taxes"
        actions={
          <Allowed need={{ scope: 'settings:write' }}>
            <Button variant="primary" onClick={() => setEditing('new')}>
              New tax region
            </Button>
          </Allowed>
        }
      >
        <p className="subtitle">
          The tax each place charges. Without tax regions, every order pays the tax rate of the general
          settings.
        </p>
      </PageHeader>
      <SettingsTabs />
      {notice ? <Notice>{notice}</Notice> : null}
      <PricesIncludeTax />
      <Card title="Tax regions">
        <div className="stack">
          <ErrorBanner
            error={error ?? regions.error ?? countries.error}
            title="Something went wrong with taxes"
          />
          {regions.loading && !regions.data ? <Loading label="Loading tax regions…" /> : null}
          {sorted && sorted.length === 0 ? (
            <Empty title="No tax regions yet">
              <p>
                Add a rate for each country you collect tax in (VAT 19 % in Germany), and for states or
                provinces with their own (sales tax 7.25 % in California).
              </p>
            </Empty>
          ) : null}
          {sorted && sorted.length > 0 ? (
            <div className="table-wrap">
              <table className="responsive">
                <thead>
                  <tr>
                    <th>Country</th>
                    <th>Region</th>
                    <th>Tax</th>
                    <th className="num">Rate</th>
                    <th>Shipping</th>
                    <th>
                      <span className="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {sorted.map((r) => (
                    <tr key={r.id}>
                      <td data-label="Country">{countryName(r.country)}</td>
                      <td data-label="Region">
                        {r.region ? `${subdivisionName(r.region)} (${r.region})` : 'Whole country'}
                      </td>
                      <td data-label="Tax">{r.name}</td>
                      <td data-label="Rate" className="num">
                        {r.rate} %
                      </td>
                      <td data-label="Shipping">{r.shipping_taxable ? 'Taxed' : 'Not taxed'}</td>
                      <td className="row-actions">
                        <Allowed need={{ scope: 'settings:write' }}>
                          <Button
                            variant="link"
                            onClick={() => setEditing(r)}
                            aria-label={`Edit ${r.name} for ${where(r)}`}
                          >
                            Edit
                          </Button>
                          <Button
                            variant="link"
                            onClick={() => void remove(r)}
                            aria-label={`Delete ${r.name} for ${where(r)}`}
                          >
                            Delete
                          </Button>
                        </Allowed>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : null}
          <Pagination meta={regions.data?.meta.pagination} onPage={setPage} />
        </div>
      </Card>
      {editing ? (
        <TaxRegionModal
          region={editing === 'new' ? undefined : editing}
          countries={countries.countries}
          // The form may have shown a version someone else saved (its Reload): the list follows.
          onClose={() => {
            setEditing(undefined);
            regions.reload();
          }}
          onSaved={(saved) => {
            setNotice(`${taxLabel(saved.name, saved.rate)} was ${editing === 'new' ? 'created' : 'saved'}.`);
            setEditing(undefined);
            regions.reload();
          }}
        />
      ) : null}
    </div>
  );
}
