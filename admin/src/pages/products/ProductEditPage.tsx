import { type FormEvent, useEffect, useState } from 'react';
import { ApiError, api, type ListResult, type Versioned, versionedRequest } from '../../api/client';
import type { Category, Product } from '../../api/types';
import { Allowed } from '../../components/access';
import { useConfirm } from '../../components/dialogs';
import { StaleNotice } from '../../components/StaleNotice';
import {
  Button,
  Card,
  Checkbox,
  ErrorBanner,
  errorLink,
  InlineError,
  Loading,
  Notice,
  PageHeader,
  SelectField,
  TextAreaField,
  TextField,
} from '../../components/ui';
import { useResource } from '../../components/useResource';
import { StaleEdit, saveChanges } from '../../lib/concurrency';
import { Link, navigate } from '../../lib/router';
import { useCurrency } from '../../session';
import { InventoryPanel } from './InventoryPanel';
import { bodyOf, emptyForm, formOf, generateVariants, newKey, type ProductForm } from './product-form';

export function ProductEditPage({ id }: { id?: string }) {
  const product = useResource(
    async (signal) =>
      id
        ? await versionedRequest<{ data: Product }>('GET', `/api/v1/products/${id}`, undefined, { signal })
        : undefined,
    [id],
  );
  const categories = useResource(
    (signal) => api.get<ListResult<Category>>('/api/v1/categories', { limit: 100 }, signal),
    [],
  );
  if (id && product.loading && !product.data) return <Loading label="Loading the product…" />;
  if (id && product.error) {
    return (
      <div className="stack">
        <PageHeader title="Product" />
        <ErrorBanner error={product.error} title="Could not load the product" />
        <Link to="/products">Back to products</Link>
      </div>
    );
  }
  return (
    <ProductEditor
      key={product.data?.etag ?? 'new'}
      loaded={product.data}
      categories={categories.data?.data ?? []}
      onSaved={(saved) => product.set(saved)}
    />
  );
}

function ProductEditor({
  loaded,
  categories,
  onSaved,
}: {
  loaded?: Versioned<{ data: Product }>;
  categories: Category[];
  onSaved: (product: Versioned<{ data: Product }>) => void;
}) {
  const original = loaded?.body.data;
  const currency = useCurrency();
  const confirm = useConfirm();
  const [form, setForm] = useState<ProductForm>(() => (original ? formOf(original) : emptyForm()));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [notice, setNotice] = useState<string>();
  const [stale, setStale] = useState<StaleEdit<Product>>();
  const set = (change: Partial<ProductForm>) => setForm((f) => ({ ...f, ...change }));
  const fieldError = (field: string) => (error instanceof ApiError ? error.fieldError(field) : undefined);

  useEffect(() => {
    const flash = sessionStorage.getItem('emporium.flash');
    if (flash) {
      setNotice(flash);
      sessionStorage.removeItem('emporium.flash');
    }
  }, []);

  const save = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    setNotice(undefined);
    setStale(undefined);
    try {
      if (loaded && original) {
        const res = await saveChanges({
          path: `/api/v1/products/${original.id}`,
          loaded,
          payloadOf: (product: Product) => bodyOf(formOf(product), original),
          payload: bodyOf(form, original),
        });
        sessionStorage.setItem('emporium.flash', 'The product was saved.');
        onSaved(res);
      } else {
        const res = await api.post<{ data: Product }>('/api/v1/products', bodyOf(form));
        sessionStorage.setItem('emporium.flash', 'The product was created.');
        navigate(`/products/${res.data.id}`, { replace: true });
      }
    } catch (reason) {
      if (reason instanceof StaleEdit) setStale(reason);
      else setError(reason);
      setBusy(false);
    }
  };

  const remove = async () => {
    if (!original) return;
    const ok = await confirm({
      title: `Delete ${original.name}?`,
      message: 'The product disappears from the catalogue and the storefront. Past orders keep their items.',
      confirmLabel: 'Delete product',
      danger: true,
    });
    if (!ok) return;
    try {
      await api.delete(`/api/v1/products/${original.id}`);
      navigate('/products');
    } catch (reason) {
      setError(reason);
    }
  };

  const hasVariants = form.variants.length > 0;
  return (
    <div className="stack-lg">
      <p className="breadcrumb">
        <Link to="/products">Products</Link> /
      </p>
      <PageHeader
        title={original ? original.name : 'New product'}
        actions={
          original ? (
            <Allowed need={{ scope: 'products:write' }}>
              <Button variant="danger" onClick={() => void remove()}>
                Delete
              </Button>
            </Allowed>
          ) : null
        }
      />
      {notice ? <Notice>{notice}</Notice> : null}
      <div className="grid-main wide-side">
        <form className="stack-lg" onSubmit={save} noValidate aria-label="Product">
          <ErrorBanner error={error} title="Could not save the product" />
          {stale ? (
            <StaleNotice what="product" fields={stale.fields} onReload={() => onSaved(stale.latest)} />
          ) : null}
          <Card title="Details">
            <div className="stack">
              <TextField
                label="Name"
                required
                value={form.name}
                onChange={(e) => set({ name: e.target.value })}
                error={fieldError('name')}
              />
              <TextAreaField
                label="Description"
                rows={4}
                value={form.description}
                onChange={(e) => set({ description: e.target.value })}
                error={fieldError('description')}
              />
              <div className="row">
                <SelectField
                  label="Status"
                  value={form.status}
                  onChange={(e) => set({ status: e.target.value as ProductForm['status'] })}
                  options={[
                    { value: 'active', label: 'Active (on the storefront)' },
                    { value: 'draft', label: 'Draft' },
                    { value: 'archived', label: 'Archived' },
                  ]}
                />
                <TextField
                  label="Slug"
                  value={form.slug}
                  placeholder="made from the name"
                  onChange={(e) => set({ slug: e.target.value })}
                  error={fieldError('slug')}
                />
              </div>
            </div>
          </Card>
          <Card title="Pricing and stock">
            <div className="stack">
              <div className="row">
                <TextField
                  label={`Price (${currency})`}
                  inputMode="decimal"
                  required
                  value={form.price}
                  onChange={(e) => set({ price: e.target.value })}
                  error={fieldError('price')}
                />
                <TextField
                  label={`Compare-at price (${currency})`}
                  inputMode="decimal"
                  value={form.comparePrice}
                  onChange={(e) => set({ comparePrice: e.target.value })}
                  error={fieldError('compare_price')}
                />
              </div>
              <div className="row">
                <TextField
                  label="SKU"
                  value={form.sku}
                  onChange={(e) => set({ sku: e.target.value })}
                  error={fieldError('sku')}
                />
                {!original && !hasVariants ? (
                  <TextField
                    label="Stock"
                    type="number"
                    min={0}
                    value={form.inventory}
                    onChange={(e) => set({ inventory: e.target.value })}
                    error={fieldError('inventory')}
                  />
                ) : null}
                <TextField
                  label="Low-stock threshold"
                  type="number"
                  min={0}
                  placeholder="store default"
                  value={form.lowStockThreshold}
                  onChange={(e) => set({ lowStockThreshold: e.target.value })}
                  error={fieldError('low_stock_threshold')}
                />
              </div>
              <Checkbox
                label="Track stock"
                checked={form.trackInventory}
                onChange={(e) => set({ trackInventory: e.target.checked })}
              />
              <div className="row">
                <TextField
                  label="Weight (g)"
                  type="number"
                  min={0}
                  step={1}
                  value={form.weightGrams}
                  onChange={(e) => set({ weightGrams: e.target.value })}
                  error={fieldError('weight_grams')}
                  hint="For shipping rates by weight; a variant without its own weighs this"
                />
              </div>
              <Checkbox
                label="Charge tax on this product"
                checked={form.taxable}
                onChange={(e) => set({ taxable: e.target.checked })}
              />
            </div>
          </Card>
          <Card title="Images">
            <div className="stack">
              {form.media.length === 0 ? (
                <p className="hint">
                  No image yet. Add image URLs; the first is the main image unless you choose another.
                </p>
              ) : null}
              {form.media.map((m, index) => (
                <div className="media-row" key={m.key}>
                  {m.url && !m.video ? (
                    <img className="thumb" src={m.url} alt="" />
                  ) : (
                    <span className="thumb thumb-empty">{m.video ? '▶' : ''}</span>
                  )}
                  <TextField
                    label={m.video ? `Video URL ${index + 1}` : `Image URL ${index + 1}`}
                    type="url"
                    value={m.url}
                    placeholder="https://"
                    onChange={(e) =>
                      set({
                        media: form.media.map((x) => (x.key === m.key ? { ...x, url: e.target.value } : x)),
                      })
                    }
                    error={fieldError(`images.${index}.url`)}
                  />
                  <TextField
                    label="Alt text"
                    value={m.alt}
                    onChange={(e) =>
                      set({
                        media: form.media.map((x) => (x.key === m.key ? { ...x, alt: e.target.value } : x)),
                      })
                    }
                  />
                  {!m.video ? (
                    <Checkbox
                      label="Main image"
                      checked={m.primary}
                      onChange={(e) =>
                        set({
                          media: form.media.map((x) => ({
                            ...x,
                            primary: x.key === m.key ? e.target.checked : false,
                          })),
                        })
                      }
                    />
                  ) : null}
                  <Button
                    variant="link"
                    onClick={() => set({ media: form.media.filter((x) => x.key !== m.key) })}
                    aria-label={`Remove image ${index + 1}`}
                  >
                    Remove
                  </Button>
                </div>
              ))}
              <div className="form-actions start">
                <Button
                  onClick={() =>
                    set({
                      media: [
                        ...form.media,
                        { key: newKey(), url: '', alt: '', primary: false, video: false },
                      ],
                    })
                  }
                >
                  Add image URL
                </Button>
                <Button
                  onClick={() =>
                    set({
                      media: [
                        ...form.media,
                        { key: newKey(), url: '', alt: '', primary: false, video: true },
                      ],
                    })
                  }
                >
                  Add video URL
                </Button>
              </div>
              <Checkbox
                label="Download the images and host them here"
                hint="Each image is fetched, converted to WebP and stored by Emporium. If one cannot be fetched, nothing is saved."
                checked={form.downloadImages}
                onChange={(e) => set({ downloadImages: e.target.checked })}
              />
            </div>
          </Card>
          <Card title="Options and variants">
            <div className="stack">
              <p className="hint">
                Up to three options, such as Size or Colour, with comma-separated values. Each combination is
                a variant.
              </p>
              {form.options.map((o, index) => (
                <div className="row" key={o.key}>
                  <TextField
                    label={`Option ${index + 1} name`}
                    value={o.name}
                    placeholder="Size"
                    onChange={(e) =>
                      set({
                        options: form.options.map((x) =>
                          x.key === o.key ? { ...x, name: e.target.value } : x,
                        ),
                      })
                    }
                  />
                  <TextField
                    label="Values"
                    value={o.values}
                    placeholder="S, M, L"
                    onChange={(e) =>
                      set({
                        options: form.options.map((x) =>
                          x.key === o.key ? { ...x, values: e.target.value } : x,
                        ),
                      })
                    }
                  />
                  <Button
                    variant="link"
                    onClick={() => set({ options: form.options.filter((x) => x.key !== o.key) })}
                    aria-label={`Remove option ${index + 1}`}
                  >
                    Remove
                  </Button>
                </div>
              ))}
              <ErrorBanner
                error={fieldError('options') ? new Error(fieldError('options')) : undefined}
                title="Options"
              />
              <div className="form-actions start">
                {form.options.length < 3 ? (
                  <Button
                    onClick={() =>
                      set({ options: [...form.options, { key: newKey(), name: '', values: '' }] })
                    }
                  >
                    Add option
                  </Button>
                ) : null}
                {form.options.length ? (
                  <Button onClick={() => set({ variants: generateVariants(form) })}>
                    Make variants from options
                  </Button>
                ) : null}
              </div>
              {hasVariants ? (
                <div className="table-wrap">
                  <table className="responsive variants">
                    <thead>
                      <tr>
                        <th>Variant</th>
                        <th>SKU</th>
                        <th>Price</th>
                        <th>Compare-at</th>
                        <th>Weight (g)</th>
                        {form.variants.some((v) => !v.id) ? <th>Stock</th> : null}
                        <th>
                          <span className="visually-hidden">Remove</span>
                        </th>
                      </tr>
                    </thead>
                    <tbody>
                      {form.variants.map((v, index) => {
                        const update = (change: Partial<typeof v>) =>
                          set({
                            variants: form.variants.map((x) => (x.key === v.key ? { ...x, ...change } : x)),
                          });
                        const label = Object.values(v.options).join(' / ') || v.title;
                        return (
                          <tr key={v.key}>
                            <td data-label="Variant">
                              <input
                                aria-label={`Title of ${label}`}
                                value={v.title}
                                onChange={(e) => update({ title: e.target.value })}
                              />
                            </td>
                            <td data-label="SKU">
                              <input
                                aria-label={`SKU of ${label}`}
                                value={v.sku}
                                onChange={(e) => update({ sku: e.target.value })}
                                {...errorLink(`${v.key}-sku`, fieldError(`variants.${index}.sku`))}
                              />
                              <InlineError
                                id={`${v.key}-sku`}
                                message={fieldError(`variants.${index}.sku`)}
                              />
                            </td>
                            <td data-label="Price">
                              <input
                                aria-label={`Price of ${label}`}
                                inputMode="decimal"
                                value={v.price}
                                onChange={(e) => update({ price: e.target.value })}
                                {...errorLink(`${v.key}-price`, fieldError(`variants.${index}.price`))}
                              />
                              <InlineError
                                id={`${v.key}-price`}
                                message={fieldError(`variants.${index}.price`)}
                              />
                            </td>
                            <td data-label="Compare-at">
                              <input
                                aria-label={`Compare-at price of ${label}`}
                                inputMode="decimal"
                                value={v.comparePrice}
                                onChange={(e) => update({ comparePrice: e.target.value })}
                                {...errorLink(
                                  `${v.key}-compare`,
                                  fieldError(`variants.${index}.compare_price`),
                                )}
                              />
                              <InlineError
                                id={`${v.key}-compare`}
                                message={fieldError(`variants.${index}.compare_price`)}
                              />
                            </td>
                            <td data-label="Weight (g)">
                              <input
                                aria-label={`Weight in grams of ${label}`}
                                type="number"
                                min={0}
                                step={1}
                                placeholder={form.weightGrams.trim() || '0'}
                                value={v.weightGrams}
                                onChange={(e) => update({ weightGrams: e.target.value })}
                                {...errorLink(
                                  `${v.key}-weight`,
                                  fieldError(`variants.${index}.weight_grams`),
                                )}
                              />
                              <InlineError
                                id={`${v.key}-weight`}
                                message={fieldError(`variants.${index}.weight_grams`)}
                              />
                            </td>
                            {form.variants.some((x) => !x.id) ? (
                              <td data-label="Stock">
                                {v.id ? (
                                  <span className="hint">{v.inventory} (adjust below)</span>
                                ) : (
                                  <input
                                    aria-label={`Stock of ${label}`}
                                    type="number"
                                    min={0}
                                    value={v.inventory}
                                    onChange={(e) => update({ inventory: e.target.value })}
                                  />
                                )}
                              </td>
                            ) : null}
                            <td>
                              <Button
                                variant="link"
                                onClick={() =>
                                  set({ variants: form.variants.filter((x) => x.key !== v.key) })
                                }
                                aria-label={`Remove variant ${label}`}
                              >
                                Remove
                              </Button>
                            </td>
                          </tr>
                        );
                      })}
                    </tbody>
                  </table>
                </div>
              ) : null}
            </div>
          </Card>
          <Card title="Categories">
            {categories.length === 0 ? (
              <p className="hint">
                No categories yet. <Link to="/categories">Create one</Link>.
              </p>
            ) : (
              <fieldset className="checkbox-grid">
                <legend className="visually-hidden">Categories</legend>
                {categories.map((c) => (
                  <Checkbox
                    key={c.id}
                    label={c.name}
                    checked={form.categoryIds.includes(c.id)}
                    onChange={(e) =>
                      set({
                        categoryIds: e.target.checked
                          ? [...form.categoryIds, c.id]
                          : form.categoryIds.filter((x) => x !== c.id),
                      })
                    }
                  />
                ))}
              </fieldset>
            )}
          </Card>
          <div className="form-actions">
            <Button onClick={() => navigate('/products')}>Back</Button>
            <Allowed need={{ scope: 'products:write' }}>
              <Button type="submit" variant="primary" busy={busy}>
                {original ? 'Save product' : 'Create product'}
              </Button>
            </Allowed>
          </div>
        </form>
        {original ? (
          <div className="stack-lg">
            <InventoryPanel productId={original.id} />
          </div>
        ) : null}
      </div>
    </div>
  );
}
