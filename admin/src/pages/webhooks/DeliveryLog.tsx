import { useState } from 'react';
import { api, type ListResult } from '../../api/client';
import type { DeliveryAttempt, Webhook } from '../../api/types';
import { Badge, Button, Empty, ErrorBanner, Loading, Notice, Pagination } from '../../components/ui';
import { useResource } from '../../components/useResource';
import { formatDateTime, prettyJson } from '../../lib/format';

function Attempt({
  webhook,
  attempt,
  onRetried,
}: {
  webhook: Webhook;
  attempt: DeliveryAttempt;
  onRetried: (a: DeliveryAttempt) => void;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [pretty, setPretty] = useState(false);
  const isTest = attempt.request_body.includes('"test":true');
  const retry = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const res = await api.post<{ data: DeliveryAttempt }>(
        `/api/v1/webhooks/${webhook.id}/deliveries/${attempt.delivery_id}/retry`,
      );
      onRetried(res.data);
    } catch (reason) {
      setError(reason);
    } finally {
      setBusy(false);
    }
  };
  const body = pretty ? (prettyJson(attempt.request_body) ?? attempt.request_body) : attempt.request_body;
  return (
    <li className="attempt" data-testid="delivery-attempt">
      <details>
        <summary>
          <Badge value={attempt.status} />
          <code>{attempt.event_type}</code>
          <span>{attempt.status_code ? `HTTP ${attempt.status_code}` : (attempt.error ?? 'no answer')}</span>
          <span className="hint">
            attempt {attempt.attempt} · {attempt.duration_ms} ms · {formatDateTime(attempt.created_at)}
            {isTest ? ' · test' : ''}
          </span>
        </summary>
        <div className="attempt-body stack">
          <div className="exchange">
            <div>
              <h4>Request</h4>
              <pre className="code" data-testid="attempt-request">
                {`POST ${webhook.url}\nContent-Type: application/json\nUser-Agent: Emporium-Webhooks/1\nX-Webhook-Event: ${attempt.event_type}\nX-Webhook-Id: ${attempt.delivery_id}\nwebhook-id: ${attempt.delivery_id}${isTest ? '\nX-Webhook-Test: true' : ''}\nX-Webhook-Signature, webhook-timestamp, webhook-signature: signed at each attempt\n\n`}
                {body}
              </pre>
              <label className="inline-check">
                <input type="checkbox" checked={pretty} onChange={(e) => setPretty(e.target.checked)} />{' '}
                Indent the JSON (the exact bytes sent are shown otherwise)
              </label>
            </div>
            <div>
              <h4>Response</h4>
              <pre className="code" data-testid="attempt-response">
                {attempt.status_code ? `HTTP ${attempt.status_code} in ${attempt.duration_ms} ms\n\n` : ''}
                {attempt.error ? `Error: ${attempt.error}\n` : ''}
                {attempt.response_body ?? (attempt.error ? '' : '(empty body)')}
              </pre>
              {attempt.next_retry_at ? (
                <p className="hint">Next automatic attempt {formatDateTime(attempt.next_retry_at)}</p>
              ) : null}
            </div>
          </div>
          <ErrorBanner error={error} title="Could not retry" />
          <div className="form-actions start">
            <Button onClick={() => void retry()} busy={busy}>
              Send again now
            </Button>
          </div>
        </div>
      </details>
    </li>
  );
}

/** Every attempt, newest first, with the exact request body and the response; retry any delivery. */
export function DeliveryLog({ webhook, version }: { webhook: Webhook; version: number }) {
  const [status, setStatus] = useState('');
  const [page, setPage] = useState(1);
  const [notice, setNotice] = useState<string>();
  const log = useResource(
    (signal) =>
      api.get<ListResult<DeliveryAttempt>>(
        `/api/v1/webhooks/${webhook.id}/deliveries`,
        { status, page, limit: 20 },
        signal,
      ),
    [webhook.id, status, page, version],
  );
  return (
    <div className="stack">
      <div className="toolbar">
        <label className="inline-field">
          <span>Show</span>
          <select
            value={status}
            onChange={(e) => {
              setPage(1);
              setStatus(e.target.value);
            }}
          >
            <option value="">All attempts</option>
            <option value="succeeded">Succeeded</option>
            <option value="pending">Failed, will retry</option>
            <option value="failed">Failed</option>
          </select>
        </label>
        <Button onClick={log.reload} busy={log.loading}>
          Refresh
        </Button>
      </div>
      {notice ? <Notice>{notice}</Notice> : null}
      <ErrorBanner error={log.error} title="Could not load the delivery log" />
      {log.loading && !log.data ? <Loading label="Loading deliveries…" /> : null}
      {log.data && log.data.data.length === 0 ? (
        <Empty title="No deliveries yet">Send a test to see one here.</Empty>
      ) : null}
      {log.data && log.data.data.length > 0 ? (
        <ul className="attempts">
          {log.data.data.map((a) => (
            <Attempt
              key={a.id}
              webhook={webhook}
              attempt={a}
              onRetried={(next) => {
                setNotice(
                  `Sent again: ${next.status_code ? `HTTP ${next.status_code}` : (next.error ?? next.status)}.`,
                );
                log.reload();
              }}
            />
          ))}
        </ul>
      ) : null}
      <Pagination meta={log.data?.meta.pagination} onPage={setPage} />
    </div>
  );
}
