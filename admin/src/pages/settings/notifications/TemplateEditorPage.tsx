import { type FormEvent, useEffect, useMemo, useState } from 'react';
import { ApiError, type Versioned, versionedRequest } from '../../../api/client';
import type { NotificationTemplate } from '../../../api/types';
import { useConfirm } from '../../../components/dialogs';
import { StaleNotice } from '../../../components/StaleNotice';
import { Badge, Button, Card, ErrorBanner, Loading, Notice, PageHeader } from '../../../components/ui';
import { useResource } from '../../../components/useResource';
import { StaleEdit, saveChanges } from '../../../lib/concurrency';
import { Link } from '../../../lib/router';
import { EnabledSwitch } from './EnabledSwitch';
import { MessagePreview } from './MessagePreview';
import {
  changedParts,
  errorsByPart,
  kindDescription,
  kindLabel,
  TEMPLATE_PARTS,
  type TemplatePart,
  type TemplateParts,
} from './notification-text';
import { SendTest } from './SendTest';
import { TemplateFields } from './TemplateFields';
import { useTemplatePreview } from './useTemplatePreview';

type Loaded = Versioned<{ data: NotificationTemplate }>;

const partsOf = (t: NotificationTemplate): TemplateParts => ({
  subject: t.subject,
  html: t.html,
  text: t.text,
});

/**
 * Settings → Notifications → one e-mail: its subject, HTML and plain-text parts in Liquid beside a
 * live preview; Save (PUT of the changed parts, If-Match when the API gave an ETag), Restore default
 * (DELETE), Send test. A part that does not parse or render is shown beside its field with the line
 * the API named, and nothing is saved.
 */
export function TemplateEditorPage({ kind }: { kind: string }) {
  const path = `/api/v1/notifications/templates/${encodeURIComponent(kind)}`;
  const template = useResource(
    (signal) => versionedRequest<{ data: NotificationTemplate }>('GET', path, undefined, { signal }),
    [path],
  );
  const loaded = template.data;
  const label = kindLabel(kind);
  if (template.loading && !loaded) return <Loading label={`Loading ${label}…`} />;
  if (!loaded) {
    const missing = template.error instanceof ApiError && template.error.status === 404;
    return (
      <div className="stack">
        <PageHeader title={missing ? 'E-mail not found' : label} />
        <ErrorBanner
          error={template.error}
          title={missing ? 'There is no such e-mail' : 'Could not load the e-mail'}
        />
        <Link to="/settings/notifications">Back to notifications</Link>
      </div>
    );
  }
  return <Editor key={kind} kind={kind} path={path} loaded={loaded} onLoaded={template.set} />;
}

function Editor({
  kind,
  path,
  loaded,
  onLoaded,
}: {
  kind: string;
  path: string;
  loaded: Loaded;
  onLoaded: (next: Loaded) => void;
}) {
  const confirm = useConfirm();
  const t = loaded.body.data;
  const label = kindLabel(kind);
  // By the parts' text: a new version that changed only `enabled` leaves the draft alone.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the three strings are what matter.
  const saved = useMemo(() => partsOf(t), [t.subject, t.html, t.text]);
  const [draft, setDraft] = useState<TemplateParts>(saved);
  const [saveError, setSaveError] = useState<unknown>();
  const [stale, setStale] = useState<StaleEdit<NotificationTemplate>>();
  const [notice, setNotice] = useState<string>();
  const [busy, setBusy] = useState<'save' | 'restore'>();
  const preview = useTemplatePreview(kind, saved, draft);
  const changed = changedParts(saved, draft);
  const dirty = Object.keys(changed).length > 0;

  // A newer version (after a save, a restore or a reload) becomes what the form shows.
  useEffect(() => setDraft(saved), [saved]);

  const errors = useMemo(() => {
    const fromApi = (error: unknown) =>
      error instanceof ApiError && error.status === 400 ? errorsByPart(error.message, error.details) : {};
    const merged: Partial<Record<TemplatePart | 'other', string>> = {
      ...fromApi(preview.error),
      ...fromApi(saveError),
    };
    for (const part of TEMPLATE_PARTS) if (draft[part].trim() === '') merged[part] = 'Cannot be empty.';
    return merged;
  }, [preview.error, saveError, draft]);
  const otherPreviewError =
    preview.error && !(preview.error instanceof ApiError && preview.error.status === 400)
      ? preview.error
      : undefined;

  const edit = (part: TemplatePart, value: string) => {
    setDraft((d) => ({ ...d, [part]: value }));
    setSaveError(undefined);
    setNotice(undefined);
  };

  const showLatest = (latest: Loaded) => {
    onLoaded(latest);
    setStale(undefined);
  };

  const save = async (event: FormEvent) => {
    event.preventDefault();
    if (TEMPLATE_PARTS.some((p) => draft[p].trim() === '')) return;
    setBusy('save');
    setSaveError(undefined);
    setStale(undefined);
    setNotice(undefined);
    try {
      showLatest(await saveChanges({ path, method: 'PUT', loaded, payloadOf: partsOf, payload: draft }));
      setNotice(`${label} was saved.`);
    } catch (reason) {
      if (reason instanceof StaleEdit) setStale(reason as StaleEdit<NotificationTemplate>);
      else setSaveError(reason);
    } finally {
      setBusy(undefined);
    }
  };

  const restore = async () => {
    const ok = await confirm({
      title: `Restore the default ${label}?`,
      message: 'Your subject and both parts are replaced by the default wording. This cannot be undone.',
      confirmLabel: 'Restore default',
      danger: true,
    });
    if (!ok) return;
    setBusy('restore');
    setSaveError(undefined);
    setNotice(undefined);
    try {
      // The answer is the default template, with its version.
      showLatest(await versionedRequest<{ data: NotificationTemplate }>('DELETE', path));
      setNotice(`${label} is back to the default wording.`);
    } catch (reason) {
      setSaveError(reason);
    } finally {
      setBusy(undefined);
    }
  };

  return (
    <div className="stack-lg">
      <p className="breadcrumb">
        <Link to="/settings">Settings</Link> / <Link to="/settings/notifications">Notifications</Link> /
      </p>
      <PageHeader
        title={label}
        actions={
          t.customised ? (
            <Button variant="danger" onClick={() => void restore()} busy={busy === 'restore'}>
              Restore default
            </Button>
          ) : null
        }
      >
        <div className="badges">
          {t.customised ? (
            <Badge value="customised" label="Customised" />
          ) : (
            <Badge value="default" label="Default wording" />
          )}
          <span className="hint" id="editor-when">
            {kindDescription(kind)}
          </span>
        </div>
      </PageHeader>
      {notice ? <Notice>{notice}</Notice> : null}
      {stale ? (
        <StaleNotice what="e-mail" fields={stale.fields} onReload={() => showLatest(stale.latest)} />
      ) : null}
      <ErrorBanner
        error={
          saveError && !(saveError instanceof ApiError && saveError.status === 400) ? saveError : undefined
        }
        title="Could not save"
      />
      <div className="template-layout">
        <form className="stack template-form" onSubmit={save} aria-label={`Edit ${label}`} noValidate>
          <div className="row align-center">
            <span id="editor-enabled-label" className="strong">
              Send this e-mail
            </span>
            <EnabledSwitch
              template={t}
              etag={loaded.etag}
              labelledBy="editor-enabled-label"
              describedBy="editor-when"
              onSaved={(next, etag) =>
                // The answer's version covers the wording too: taken only when that is the wording
                // shown, else a later Save against it would silently replace what someone else wrote.
                onLoaded(
                  Object.keys(changedParts(saved, partsOf(next))).length === 0
                    ? { body: { data: next }, etag }
                    : { body: { data: { ...t, enabled: next.enabled } }, etag: loaded.etag },
                )
              }
              onError={setSaveError}
            />
          </div>
          <TemplateFields draft={draft} errors={errors} onEdit={edit} />
          {errors.other ? (
            <div className="banner banner-error" role="alert">
              {errors.other}
            </div>
          ) : null}
          <div className="form-actions start">
            <Button type="submit" variant="primary" busy={busy === 'save'} disabled={!dirty}>
              Save
            </Button>
            {dirty ? (
              <Button
                onClick={() => {
                  setDraft(saved);
                  setSaveError(undefined);
                }}
                disabled={busy !== undefined}
              >
                Discard changes
              </Button>
            ) : null}
          </div>
        </form>
        <div className="stack-lg">
          <ErrorBanner error={otherPreviewError} title="Could not preview" />
          <MessagePreview message={preview.message} updating={preview.updating} label={label} />
        </div>
      </div>
      <div className="grid-2">
        <Card title="Variables">
          <p className="hint">
            Liquid values this e-mail can use, such as <code>{'{{ order.order_number }}'}</code>. In the HTML
            part they are escaped unless followed by <code>| raw</code>.
          </p>
          <ul className="variables" aria-label="Variables">
            {t.variables.map((v) => (
              <li key={v}>
                <code>{v}</code>
              </li>
            ))}
          </ul>
        </Card>
        <Card title="Send a test">
          <SendTest kind={kind} unsaved={dirty} />
        </Card>
      </div>
    </div>
  );
}
