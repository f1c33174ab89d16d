import { useMemo, useState } from 'react';
import { api, type ListResult } from '../../../api/client';
import type { ShippingZone } from '../../../api/types';
import { Allowed } from '../../../components/access';
import { useConfirm } from '../../../components/dialogs';
import { Button, Empty, ErrorBanner, Loading, Notice, PageHeader, Pagination } from '../../../components/ui';
import { useCountries } from '../../../components/useCountries';
import { useResource } from '../../../components/useResource';
import { countryList, namer } from '../../../lib/countries';
import { useCurrency } from '../../../session';
import { SettingsTabs } from '../SettingsTabs';
import { describeRate } from './rate-text';
import { ZoneModal } from './ZoneModal';

/**
 * Settings → Shipping (contract §12): the store's shipping zones, each a set of countries with its
 * rates. Without any zone, checkout charges the flat rate of the general settings; with one, the
 * buyer's country picks its zone and a country no zone covers cannot check out.
 */
export function ShippingPage() {
  const currency = useCurrency();
  const confirm = useConfirm();
  const [page, setPage] = useState(1);
  const zones = useResource(
    (signal) => api.get<ListResult<ShippingZone>>('/api/v1/shipping-zones', { page, limit: 50 }, signal),
    [page],
  );
  const countries = useCountries();
  const nameOf = useMemo(() => namer(countries.countries), [countries.countries]);
  const [editing, setEditing] = useState<ShippingZone | 'new'>();
  const [notice, setNotice] = useState<string>();
  const [error, setError] = useState<unknown>();

  const remove = async (zone: ShippingZone) => {
    const ok = await confirm({
      title: `Delete ${zone.name}?`,
      message:
        'Its rates go with it. Buyers in its countries can then check out only if another zone (such as “Rest of the world”) covers them. Orders already placed keep their shipping.',
      confirmLabel: 'Delete zone',
      danger: true,
    });
    if (!ok) return;
    setError(undefined);
    try {
      await api.delete(`/api/v1/shipping-zones/${zone.id}`);
      setNotice(`${zone.name} was deleted.`);
      zones.reload();
    } catch (reason) {
      setError(reason);
    }
  };

  const list = zones.data?.data;
  return (
    <div className="stack-lg">
      <PageHeader
        title="Shipping"
        actions={
          <Allowed need={{ scope: 'settings:write' }}>
            <Button variant="primary" onClick={() => setEditing('new')}>
              New zone
            </Button>
          </Allowed>
        }
      >
        <p className="subtitle">
          Where you ship and what it costs. Without zones, every order pays the flat rate of the general
          settings.
        </p>
      </PageHeader>
      <SettingsTabs />
      {notice ? <Notice>{notice}</Notice> : null}
      <ErrorBanner
        error={error ?? zones.error ?? countries.error}
        title="Something went wrong with shipping"
      />
      {zones.loading && !zones.data ? <Loading label="Loading shipping zones…" /> : null}
      {list && list.length === 0 ? (
        <Empty title="No shipping zones yet">
          <p>
            Create a zone for the countries you ship to, with a rate or several (standard, express), and “Rest
            of the world” for everywhere else.
          </p>
        </Empty>
      ) : null}
      {list && list.length > 0 ? (
        <div className="table-wrap">
          <table className="responsive">
            <thead>
              <tr>
                <th>Zone</th>
                <th>Countries</th>
                <th>Rates</th>
                <th>
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.map((zone) => (
                <tr key={zone.id}>
                  <td data-label="Zone">
                    <strong>{zone.name}</strong>
                  </td>
                  <td data-label="Countries" title={zone.countries.map(nameOf).join(', ')}>
                    {countryList(zone.countries, nameOf)}
                  </td>
                  <td data-label="Rates">
                    {/* One child: on a phone the cell is a grid of its label and its content. */}
                    <div>
                      {zone.rates.length} {zone.rates.length === 1 ? 'rate' : 'rates'}
                      <ul className="plain-list hint">
                        {zone.rates.map((rate) => (
                          <li key={rate.id}>{describeRate(rate, currency)}</li>
                        ))}
                      </ul>
                    </div>
                  </td>
                  <td className="row-actions">
                    <Allowed need={{ scope: 'settings:write' }}>
                      <Button
                        variant="link"
                        onClick={() => setEditing(zone)}
                        aria-label={`Edit ${zone.name}`}
                      >
                        Edit
                      </Button>
                      <Button
                        variant="link"
                        onClick={() => void remove(zone)}
                        aria-label={`Delete ${zone.name}`}
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
      <Pagination meta={zones.data?.meta.pagination} onPage={setPage} />
      {editing ? (
        <ZoneModal
          zone={editing === 'new' ? undefined : editing}
          countries={countries.countries}
          // The form may have shown a version someone else saved (its Reload): the list follows.
          onClose={() => {
            setEditing(undefined);
            zones.reload();
          }}
          onSaved={(saved) => {
            setNotice(`${saved.name} was ${editing === 'new' ? 'created' : 'saved'}.`);
            setEditing(undefined);
            zones.reload();
          }}
        />
      ) : null}
    </div>
  );
}
