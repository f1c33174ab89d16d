import { type FormEvent, useState } from 'react';
import { api } from '../../../api/client';
import type { NotificationRecord } from '../../../api/types';
import { Button, ErrorBanner, Notice, TextField } from '../../../components/ui';
import { useSession } from '../../../session';
import { testSendOutcome } from './notification-text';

/**
 * POST …/{kind}/test { to }: one message of the saved template, rendered with the store's latest
 * order (or sample data), to the signed-in person unless they type another address.
 */
export function SendTest({ kind, unsaved }: { kind: string; unsaved: boolean }) {
  const { session } = useSession();
  const [to, setTo] = useState(session.user.email);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [outcome, setOutcome] = useState<ReturnType<typeof testSendOutcome>>();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    setOutcome(undefined);
    try {
      const answer = await api.post<{ data: NotificationRecord }>(
        `/api/v1/notifications/templates/${encodeURIComponent(kind)}/test`,
        { to: to.trim() },
      );
      setOutcome(testSendOutcome(answer.data));
    } catch (reason) {
      setError(reason);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="stack" onSubmit={submit} aria-label="Send a test">
      <TextField
        label="Send a test to"
        type="email"
        required
        autoComplete="email"
        value={to}
        onChange={(e) => setTo(e.target.value)}
        hint={
          unsaved
            ? 'The test uses the saved template: save first to receive your changes.'
            : 'Rendered with your latest order, or a sample one.'
        }
      />
      <ErrorBanner error={error} title="Could not send the test" />
      {outcome ? <Notice tone={outcome.tone}>{outcome.text}</Notice> : null}
      <div className="form-actions start">
        <Button type="submit" busy={busy}>
          Send test
        </Button>
      </div>
    </form>
  );
}
