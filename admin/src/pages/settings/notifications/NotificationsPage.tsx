import { useState } from 'react';
import { api } from '../../../api/client';
import type { NotificationTemplate } from '../../../api/types';
import { Badge, Card, Empty, ErrorBanner, Loading, PageHeader } from '../../../components/ui';
import { useResource } from '../../../components/useResource';
import { Link } from '../../../lib/router';
import { SettingsTabs } from '../SettingsTabs';
import { EnabledSwitch } from './EnabledSwitch';
import { AUDIENCES, kindDescription, kindLabel, kindsFor } from './notification-text';

/**
 * Settings → Notifications (contract §13): the seven e-mails, those to the buyer and those to the
 * store, each switched on or off at once, marked when the store changed its wording, and editable.
 */
export function NotificationsPage() {
  const templates = useResource(
    (signal) => api.get<{ data: NotificationTemplate[] }>('/api/v1/notifications/templates', {}, signal),
    [],
  );
  const [error, setError] = useState<unknown>();
  const list = templates.data?.data;

  const replace = (next: NotificationTemplate) => {
    if (!templates.data) return;
    templates.set({
      ...templates.data,
      data: templates.data.data.map((t) => (t.kind === next.kind ? next : t)),
    });
  };

  return (
    <div className="stack-lg">
      <PageHeader title="Notifications">
        <p className="subtitle">
          The e-mails your store sends. Switch one off and nothing of its kind is sent; edit its words in
          Liquid, with a preview beside them.
        </p>
      </PageHeader>
      <SettingsTabs />
      <ErrorBanner error={error ?? templates.error} title="Something went wrong with notifications" />
      {templates.loading && !list ? <Loading label="Loading the e-mails…" /> : null}
      {list && list.length === 0 ? <Empty title="No e-mails to configure" /> : null}
      {list && list.length > 0
        ? AUDIENCES.map(({ audience, title }) => (
            <Card key={audience} title={title}>
              <ul className="notification-kinds" aria-label={title}>
                {kindsFor(list, audience).map((t) => (
                  <li key={t.kind} className="notification-kind" data-testid={`kind-${t.kind}`}>
                    <div className="notification-kind-text">
                      <h3 id={`kind-${t.kind}-name`}>
                        {kindLabel(t.kind)}
                        {t.customised ? <Badge value="customised" label="Customised" /> : null}
                      </h3>
                      <p className="hint" id={`kind-${t.kind}-when`}>
                        {kindDescription(t.kind)}
                      </p>
                    </div>
                    <EnabledSwitch
                      template={t}
                      labelledBy={`kind-${t.kind}-name`}
                      describedBy={`kind-${t.kind}-when`}
                      onSaved={(next) => {
                        setError(undefined);
                        replace(next);
                      }}
                      onError={setError}
                    />
                    <Link
                      to={`/settings/notifications/${t.kind}`}
                      className="btn btn-secondary"
                      aria-label={`Edit ${kindLabel(t.kind)}`}
                    >
                      Edit
                    </Link>
                  </li>
                ))}
              </ul>
            </Card>
          ))
        : null}
    </div>
  );
}
