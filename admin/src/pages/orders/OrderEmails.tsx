import { useState } from 'react';
import { api, type ListResult } from '../../api/client';
import type { NotificationRecord } from '../../api/types';
import { useConfirm } from '../../components/dialogs';
import { Badge, Button, Card, Empty, ErrorBanner, Loading, Notice } from '../../components/ui';
import { useResource } from '../../components/useResource';
import { formatDateTime } from '../../lib/format';
import { kindLabel, notificationStatusLabel } from '../settings/notifications/notification-text';

const STATUS_TONE: Record<string, string> = { sent: 'completed', pending: 'pending', failed: 'failed' };

/**
 * The e-mails of one order (GET /api/v1/notifications?order_id=), newest first, with what went wrong
 * when one failed; Resend queues a copy (a new row of the log) after a confirmation.
 */
export function OrderEmails({ orderId, version }: { orderId: string; version: string }) {
  const confirm = useConfirm();
  const emails = useResource(
    (signal) =>
      api.get<ListResult<NotificationRecord>>(
        '/api/v1/notifications',
        { order_id: orderId, limit: 100 },
        signal,
      ),
    // The order's version: an action on the order (fulfil, refund, cancel) may have queued an e-mail.
    [orderId, version],
  );
  const [busy, setBusy] = useState<string>();
  const [error, setError] = useState<unknown>();
  const [notice, setNotice] = useState<string>();

  const resend = async (n: NotificationRecord) => {
    const ok = await confirm({
      title: `Send the ${kindLabel(n.kind).toLowerCase()} again?`,
      message: `A new copy goes to ${n.to}, with today’s wording of the e-mail.`,
      confirmLabel: 'Resend',
    });
    if (!ok) return;
    setBusy(n.id);
    setError(undefined);
    setNotice(undefined);
    try {
      const answer = await api.post<{ data: NotificationRecord }>(`/api/v1/notifications/${n.id}/resend`);
      setNotice(`${kindLabel(answer.data.kind)} queued again for ${answer.data.to}.`);
      emails.reload();
    } catch (reason) {
      setError(reason);
    } finally {
      setBusy(undefined);
    }
  };

  const list = emails.data?.data;
  return (
    <Card title="E-mails" className="order-emails">
      <div className="stack">
        {notice ? <Notice>{notice}</Notice> : null}
        <ErrorBanner error={error ?? emails.error} title="Something went wrong with the e-mails" />
        {emails.loading && !list ? <Loading label="Loading the e-mails…" /> : null}
        {list && list.length === 0 ? <Empty title="No e-mails for this order yet" /> : null}
        {list && list.length > 0 ? (
          <div className={`table-wrap ${emails.loading ? 'is-refreshing' : ''}`}>
            <table className="responsive" aria-label="E-mails of this order">
              <thead>
                <tr>
                  <th>E-mail</th>
                  <th>To</th>
                  <th>Status</th>
                  <th>Sent</th>
                  <th>
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {list.map((n) => (
                  <tr key={n.id} data-testid="order-email">
                    <td data-label="E-mail">
                      {/* One element per cell: a phone lays each cell out as a label and its value. */}
                      <div>
                        {kindLabel(n.kind)}
                        {n.subject ? <div className="hint">{n.subject}</div> : null}
                      </div>
                    </td>
                    <td data-label="To" className="email-to">
                      {n.to}
                    </td>
                    <td data-label="Status">
                      <div>
                        <Badge
                          value={STATUS_TONE[n.status] ?? n.status}
                          label={notificationStatusLabel(n.status)}
                        />
                        {n.attempts > 1 ? <span className="hint"> {n.attempts} attempts</span> : null}
                        {n.status !== 'sent' && n.last_error ? (
                          <div className="field-error">{n.last_error}</div>
                        ) : null}
                      </div>
                    </td>
                    <td data-label="Sent">{n.sent_at ? formatDateTime(n.sent_at) : '—'}</td>
                    <td className="row-actions">
                      <Button
                        variant="link"
                        busy={busy === n.id}
                        onClick={() => void resend(n)}
                        aria-label={`Resend ${kindLabel(n.kind)} to ${n.to}`}
                      >
                        Resend
                      </Button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
      </div>
    </Card>
  );
}
