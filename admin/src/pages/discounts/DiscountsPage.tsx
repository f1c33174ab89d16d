import { type FormEvent, useState } from 'react';
import { ApiError, api, type ListResult } from '../../api/client';
import type { Category, Discount, DiscountType } from '../../api/types';
import { Allowed } from '../../components/access';
import { ModalForm, useConfirm } from '../../components/dialogs';
import { StaleNotice } from '../../components/StaleNotice';
import {
  Badge,
  Button,
  Checkbox,
  Empty,
  ErrorBanner,
  Loading,
  Notice,
  PageHeader,
  Pagination,
  SelectField,
  TextField,
} from '../../components/ui';
import { useResource } from '../../components/useResource';
import { useVersionedDraft } from '../../components/useVersionedDraft';
import { formatMoney } from '../../lib/money';
import { formatZoned, fromZonedInput, toZonedInput } from '../../lib/zoned-time';
import { useCurrency, useTimeZone } from '../../session';
import { describeDiscount } from './discount-text';

interface Draft {
  automatic: boolean;
  code: string;
  title: string;
  type: DiscountType;
  value: string;
  minSubtotal: string;
  startsAt: string;
  endsAt: string;
  usageLimit: string;
  oncePerCustomer: boolean;
  active: boolean;
  categoryIds: string[];
}

function draftOf(timeZone: string, d?: Discount): Draft {
  return {
    automatic: d ? d.code === null : false,
    code: d?.code ?? '',
    title: d?.title ?? '',
    type: d?.type ?? 'percentage',
    value: d?.value ?? '',
    minSubtotal: d?.min_subtotal ?? '',
    startsAt: toZonedInput(d?.starts_at ?? null, timeZone),
    endsAt: toZonedInput(d?.ends_at ?? null, timeZone),
    usageLimit: d?.usage_limit === null || d?.usage_limit === undefined ? '' : String(d.usage_limit),
    oncePerCustomer: d?.once_per_customer ?? false,
    active: d?.active ?? true,
    categoryIds: d?.category_ids ?? [],
  };
}

/** The body of a save with every field of the form (saveChanges sends only the changed ones). */
function bodyOf(draft: Draft, timeZone: string) {
  return {
    code: draft.automatic ? null : draft.code.trim(),
    title: draft.title.trim() || (draft.automatic ? 'Automatic discount' : draft.code.trim()),
    type: draft.type,
    value: draft.type === 'free_shipping' ? '0' : draft.value.trim(),
    min_subtotal: draft.minSubtotal.trim() || null,
    ...(draft.startsAt ? { starts_at: fromZonedInput(draft.startsAt, timeZone) } : {}),
    ends_at: fromZonedInput(draft.endsAt, timeZone),
    usage_limit: draft.usageLimit.trim() ? Number(draft.usageLimit) : null,
    once_per_customer: draft.oncePerCustomer,
    active: draft.active,
    category_ids: draft.categoryIds,
  };
}

function DiscountModal({
  discount,
  categories,
  onClose,
  onSaved,
}: {
  discount?: Discount;
  categories: Category[];
  onClose: () => void;
  onSaved: (d: Discount) => void;
}) {
  const currency = useCurrency();
  const timeZone = useTimeZone();
  // A field the merchant did not touch is not sent (saveChanges): an untouched date keeps its seconds.
  const { draft, set, stale, showLatest, save } = useVersionedDraft(
    discount && `/api/v1/discounts/${discount.id}`,
    discount,
    (d?: Discount) => draftOf(timeZone, d),
  );
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const fieldError = (field: string) => (error instanceof ApiError ? error.fieldError(field) : undefined);
  const submit = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const saved = discount
        ? await save((d) => bodyOf(d, timeZone))
        : (await api.post<{ data: Discount }>('/api/v1/discounts', bodyOf(draft, timeZone))).data;
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
      wide
      title={discount ? `Edit ${discount.code ?? discount.title}` : 'New discount'}
      submitLabel={discount ? 'Save discount' : 'Create discount'}
      busy={busy}
      onClose={onClose}
      onSubmit={() => void submit()}
    >
      <ErrorBanner error={error} title="Could not save the discount" />
      {stale ? (
        <StaleNotice what="discount" fields={stale.fields} onReload={() => showLatest(stale.latest)} />
      ) : null}
      <fieldset className="segmented">
        <legend>Applies</legend>
        <label>
          <input
            type="radio"
            name="kind"
            checked={!draft.automatic}
            onChange={() => set({ automatic: false })}
          />{' '}
          With a code
        </label>
        <label>
          <input
            type="radio"
            name="kind"
            checked={draft.automatic}
            onChange={() => set({ automatic: true })}
          />{' '}
          Automatically
        </label>
      </fieldset>
      <div className="row">
        {!draft.automatic ? (
          <TextField
            label="Code"
            required
            autoFocus
            value={draft.code}
            placeholder="SUMMER15"
            onChange={(e) => set({ code: e.target.value.toUpperCase() })}
            error={fieldError('code')}
          />
        ) : null}
        <TextField
          label="Title"
          value={draft.title}
          placeholder="Summer sale"
          onChange={(e) => set({ title: e.target.value })}
          error={fieldError('title')}
        />
      </div>
      <div className="row">
        <SelectField
          label="Type"
          value={draft.type}
          onChange={(e) => set({ type: e.target.value as DiscountType })}
          options={[
            { value: 'percentage', label: 'Percentage' },
            { value: 'fixed_amount', label: 'Fixed amount' },
            { value: 'free_shipping', label: 'Free shipping' },
          ]}
        />
        {draft.type !== 'free_shipping' ? (
          <TextField
            label={draft.type === 'percentage' ? 'Value (%)' : `Value (${currency})`}
            inputMode="decimal"
            required
            value={draft.value}
            placeholder={draft.type === 'percentage' ? '15' : '5.00'}
            onChange={(e) => set({ value: e.target.value })}
            error={fieldError('value')}
          />
        ) : null}
        <TextField
          label={`Minimum subtotal (${currency})`}
          inputMode="decimal"
          value={draft.minSubtotal}
          onChange={(e) => set({ minSubtotal: e.target.value })}
          error={fieldError('min_subtotal')}
        />
      </div>
      <div className="row">
        <TextField
          label="Starts"
          type="datetime-local"
          value={draft.startsAt}
          onChange={(e) => set({ startsAt: e.target.value })}
          hint={`Empty: now. Times in ${timeZone}`}
          error={fieldError('starts_at')}
        />
        <TextField
          label="Ends"
          type="datetime-local"
          value={draft.endsAt}
          onChange={(e) => set({ endsAt: e.target.value })}
          hint={`Empty: never. Times in ${timeZone}`}
          error={fieldError('ends_at')}
        />
        <TextField
          label="Usage limit"
          type="number"
          min={1}
          value={draft.usageLimit}
          placeholder="unlimited"
          onChange={(e) => set({ usageLimit: e.target.value })}
          error={fieldError('usage_limit')}
        />
      </div>
      <Checkbox
        label="Once per customer"
        checked={draft.oncePerCustomer}
        onChange={(e) => set({ oncePerCustomer: e.target.checked })}
      />
      <Checkbox label="Active" checked={draft.active} onChange={(e) => set({ active: e.target.checked })} />
      {categories.length ? (
        <fieldset className="checkbox-grid">
          <legend>Only for these categories (none: the whole cart)</legend>
          {categories.map((c) => (
            <Checkbox
              key={c.id}
              label={c.name}
              checked={draft.categoryIds.includes(c.id)}
              onChange={(e) =>
                set({
                  categoryIds: e.target.checked
                    ? [...draft.categoryIds, c.id]
                    : draft.categoryIds.filter((x) => x !== c.id),
                })
              }
            />
          ))}
        </fieldset>
      ) : null}
    </ModalForm>
  );
}

export function DiscountsPage() {
  const currency = useCurrency();
  const timeZone = useTimeZone();
  const confirm = useConfirm();
  const [q, setQ] = useState('');
  const [query, setQuery] = useState('');
  const [active, setActive] = useState('');
  const [page, setPage] = useState(1);
  const discounts = useResource(
    (signal) =>
      api.get<ListResult<Discount>>('/api/v1/discounts', { q: query, active, page, limit: 25 }, signal),
    [query, active, page],
  );
  const categories = useResource(
    (signal) => api.get<ListResult<Category>>('/api/v1/categories', { limit: 100 }, signal),
    [],
  );
  const [editing, setEditing] = useState<Discount | 'new'>();
  const [notice, setNotice] = useState<string>();
  const [error, setError] = useState<unknown>();

  const remove = async (d: Discount) => {
    const ok = await confirm({
      title: `Delete ${d.code ?? d.title}?`,
      message: 'Customers can no longer use it. Orders that used it keep their discount.',
      confirmLabel: 'Delete discount',
      danger: true,
    });
    if (!ok) return;
    setError(undefined);
    try {
      await api.delete(`/api/v1/discounts/${d.id}`);
      setNotice(`${d.code ?? d.title} was deleted.`);
      discounts.reload();
    } catch (reason) {
      setError(reason);
    }
  };

  const search = (event: FormEvent) => {
    event.preventDefault();
    setPage(1);
    setQuery(q.trim());
  };

  return (
    <div className="stack-lg">
      <PageHeader
        title="Discounts"
        actions={
          <Allowed need={{ scope: 'discounts:write' }}>
            <Button variant="primary" onClick={() => setEditing('new')}>
              New discount
            </Button>
          </Allowed>
        }
      />
      {notice ? <Notice>{notice}</Notice> : null}
      <div className="toolbar">
        <search className="search-landmark">
          <form className="search" onSubmit={search}>
            <label className="visually-hidden" htmlFor="discount-search">
              Search discounts
            </label>
            <input
              id="discount-search"
              type="search"
              placeholder="Code or title"
              value={q}
              onChange={(e) => setQ(e.target.value)}
            />
            <Button type="submit">Search</Button>
          </form>
        </search>
        <label className="inline-field">
          <span>Show</span>
          <select
            value={active}
            onChange={(e) => {
              setPage(1);
              setActive(e.target.value);
            }}
          >
            <option value="">All</option>
            <option value="true">Active</option>
            <option value="false">Inactive</option>
          </select>
        </label>
      </div>
      <ErrorBanner error={error ?? discounts.error} title="Something went wrong with discounts" />
      {discounts.loading && !discounts.data ? <Loading label="Loading discounts…" /> : null}
      {discounts.data && discounts.data.data.length === 0 ? (
        <Empty title={query || active ? 'No discount matches' : 'No discounts yet'}>
          <p>Create a code customers type at checkout, or an automatic discount.</p>
        </Empty>
      ) : null}
      {discounts.data && discounts.data.data.length > 0 ? (
        <div className="table-wrap">
          <table className="responsive">
            <thead>
              <tr>
                <th>Code</th>
                <th>Discount</th>
                <th>Status</th>
                <th className="num">Used</th>
                <th>Ends</th>
                <th>
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {discounts.data.data.map((d) => (
                <tr key={d.id}>
                  <td data-label="Code">
                    <strong>{d.code ?? 'Automatic'}</strong>
                    <div className="hint">{d.title}</div>
                  </td>
                  <td data-label="Discount">
                    {describeDiscount(d, currency)}
                    {d.min_subtotal ? (
                      <div className="hint">from {formatMoney(d.min_subtotal, currency)}</div>
                    ) : null}
                  </td>
                  <td data-label="Status">
                    <Badge value={d.active ? 'active' : 'inactive'} />
                  </td>
                  <td data-label="Used" className="num">
                    {d.usage_count}
                    {d.usage_limit !== null ? ` / ${d.usage_limit}` : ''}
                  </td>
                  <td data-label="Ends">{d.ends_at ? formatZoned(d.ends_at, timeZone) : 'Never'}</td>
                  <td className="row-actions">
                    <Allowed need={{ scope: 'discounts:write' }}>
                      <Button
                        variant="link"
                        onClick={() => setEditing(d)}
                        aria-label={`Edit ${d.code ?? d.title}`}
                      >
                        Edit
                      </Button>
                      <Button
                        variant="link"
                        onClick={() => void remove(d)}
                        aria-label={`Delete ${d.code ?? d.title}`}
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
      <Pagination meta={discounts.data?.meta.pagination} onPage={setPage} />
      {editing ? (
        <DiscountModal
          discount={editing === 'new' ? undefined : editing}
          categories={categories.data?.data ?? []}
          onClose={() => setEditing(undefined)}
          onSaved={(saved) => {
            setNotice(`${saved.code ?? saved.title} was ${editing === 'new' ? 'created' : 'saved'}.`);
            setEditing(undefined);
            discounts.reload();
          }}
        />
      ) : null}
    </div>
  );
}
