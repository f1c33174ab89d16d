import { useState } from 'react';
import { ApiError, api, type ListResult } from '../../api/client';
import type { Category } from '../../api/types';
import { Allowed } from '../../components/access';
import { ModalForm, useConfirm } from '../../components/dialogs';
import { StaleNotice } from '../../components/StaleNotice';
import {
  Button,
  Empty,
  ErrorBanner,
  Loading,
  Notice,
  PageHeader,
  SelectField,
  TextAreaField,
  TextField,
} from '../../components/ui';
import { useResource } from '../../components/useResource';
import { useVersionedDraft } from '../../components/useVersionedDraft';
import { treeOrder } from './category-tree';

interface Draft {
  name: string;
  slug: string;
  description: string;
  parentId: string;
  position: string;
}

function draftOf(category?: Category): Draft {
  return {
    name: category?.name ?? '',
    slug: category?.slug ?? '',
    description: category?.description ?? '',
    parentId: category?.parent_id ?? '',
    position: String(category?.position ?? 0),
  };
}

/** The body of a save with every field of the form (a save of an edit sends only the changed ones). */
function bodyOf(draft: Draft) {
  return {
    name: draft.name.trim(),
    ...(draft.slug.trim() ? { slug: draft.slug.trim() } : {}),
    description: draft.description,
    parent_id: draft.parentId || null,
    position: Number(draft.position || '0'),
  };
}

function CategoryModal({
  category,
  categories,
  onClose,
  onSaved,
}: {
  category?: Category;
  categories: Category[];
  onClose: () => void;
  onSaved: (category: Category) => void;
}) {
  const { draft, set, stale, showLatest, save } = useVersionedDraft(
    category && `/api/v1/categories/${category.id}`,
    category,
    draftOf,
  );
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const fieldError = (field: string) => (error instanceof ApiError ? error.fieldError(field) : undefined);
  const submit = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const saved = category
        ? await save(bodyOf)
        : (await api.post<{ data: Category }>('/api/v1/categories', bodyOf(draft))).data;
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
      title={category ? `Edit ${category.name}` : 'New category'}
      submitLabel={category ? 'Save category' : 'Create category'}
      busy={busy}
      onClose={onClose}
      onSubmit={() => void submit()}
    >
      <ErrorBanner error={error} title="Could not save the category" />
      {stale ? (
        <StaleNotice what="category" fields={stale.fields} onReload={() => showLatest(stale.latest)} />
      ) : null}
      <TextField
        label="Name"
        required
        autoFocus
        value={draft.name}
        onChange={(e) => set({ name: e.target.value })}
        error={fieldError('name')}
      />
      <TextField
        label="Slug"
        placeholder="made from the name"
        value={draft.slug}
        onChange={(e) => set({ slug: e.target.value })}
        error={fieldError('slug')}
      />
      <TextAreaField
        label="Description"
        rows={2}
        value={draft.description}
        onChange={(e) => set({ description: e.target.value })}
      />
      <div className="row">
        <SelectField
          label="Parent"
          value={draft.parentId}
          onChange={(e) => set({ parentId: e.target.value })}
          error={fieldError('parent_id')}
          options={[
            { value: '', label: 'None (top level)' },
            ...categories.filter((c) => c.id !== category?.id).map((c) => ({ value: c.id, label: c.name })),
          ]}
        />
        <TextField
          label="Position"
          type="number"
          min={0}
          value={draft.position}
          onChange={(e) => set({ position: e.target.value })}
          error={fieldError('position')}
        />
      </div>
    </ModalForm>
  );
}

export function CategoriesPage() {
  const confirm = useConfirm();
  const categories = useResource(
    (signal) => api.get<ListResult<Category>>('/api/v1/categories', { limit: 100 }, signal),
    [],
  );
  const [editing, setEditing] = useState<Category | 'new'>();
  const [notice, setNotice] = useState<string>();
  const [error, setError] = useState<unknown>();
  const all = categories.data?.data ?? [];

  const remove = async (category: Category) => {
    const ok = await confirm({
      title: `Delete ${category.name}?`,
      message: `Its products stay in the catalogue, only the category goes${category.product_count ? ` (${category.product_count} products are in it)` : ''}.`,
      confirmLabel: 'Delete category',
      danger: true,
    });
    if (!ok) return;
    setError(undefined);
    try {
      await api.delete(`/api/v1/categories/${category.id}`);
      setNotice(`${category.name} was deleted.`);
      categories.reload();
    } catch (reason) {
      setError(reason);
    }
  };

  return (
    <div className="stack-lg">
      <PageHeader
        title="Categories"
        actions={
          <Allowed need={{ scope: 'products:write' }}>
            <Button variant="primary" onClick={() => setEditing('new')}>
              New category
            </Button>
          </Allowed>
        }
      />
      {notice ? <Notice>{notice}</Notice> : null}
      <ErrorBanner error={error ?? categories.error} title="Something went wrong with categories" />
      {categories.loading && !categories.data ? <Loading label="Loading categories…" /> : null}
      {categories.data && all.length === 0 ? (
        <Empty title="No categories yet">
          <p>Categories group products on the storefront; they can be nested.</p>
        </Empty>
      ) : null}
      {all.length > 0 ? (
        <div className="table-wrap">
          <table className="responsive">
            <thead>
              <tr>
                <th>Name</th>
                <th>Slug</th>
                <th className="num">Products</th>
                <th className="num">Position</th>
                <th>
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {treeOrder(all).map(({ category: c, depth }) => (
                <tr key={c.id}>
                  <td data-label="Name">
                    <span style={{ paddingLeft: `${depth * 1.25}rem` }}>
                      {depth ? '└ ' : ''}
                      <strong>{c.name}</strong>
                    </span>
                  </td>
                  <td data-label="Slug">{c.slug}</td>
                  <td data-label="Products" className="num">
                    {c.product_count}
                  </td>
                  <td data-label="Position" className="num">
                    {c.position}
                  </td>
                  <td className="row-actions">
                    <Allowed need={{ scope: 'products:write' }}>
                      <Button variant="link" onClick={() => setEditing(c)} aria-label={`Edit ${c.name}`}>
                        Edit
                      </Button>
                      <Button variant="link" onClick={() => void remove(c)} aria-label={`Delete ${c.name}`}>
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
      {editing ? (
        <CategoryModal
          category={editing === 'new' ? undefined : editing}
          categories={all}
          onClose={() => setEditing(undefined)}
          onSaved={(saved) => {
            setNotice(`${saved.name} was ${editing === 'new' ? 'created' : 'saved'}.`);
            setEditing(undefined);
            categories.reload();
          }}
        />
      ) : null}
    </div>
  );
}
