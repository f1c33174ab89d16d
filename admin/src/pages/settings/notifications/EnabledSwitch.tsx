import { useState } from 'react';
import type { NotificationTemplate } from '../../../api/types';
import { saveChanges } from '../../../lib/concurrency';
import { kindLabel } from './notification-text';

/**
 * A kind's on/off switch, saved as soon as it is flipped: a PUT of `enabled` alone (so it never
 * overwrites wording someone is editing elsewhere), with If-Match when the caller holds the
 * template's ETag. While the save runs the switch shows the new state; a refusal puts it back.
 */
export function EnabledSwitch({
  template,
  etag,
  labelledBy,
  describedBy,
  onSaved,
  onError,
}: {
  template: NotificationTemplate;
  etag?: string | undefined;
  labelledBy: string;
  describedBy?: string;
  onSaved: (next: NotificationTemplate, etag: string | undefined) => void;
  onError: (error: unknown) => void;
}) {
  const [pending, setPending] = useState<boolean>();
  const [said, setSaid] = useState('');
  const shown = pending ?? template.enabled;

  const flip = async (enabled: boolean) => {
    setPending(enabled);
    setSaid('');
    try {
      const saved = await saveChanges<NotificationTemplate>({
        path: `/api/v1/notifications/templates/${template.kind}`,
        method: 'PUT',
        loaded: { body: { data: template }, etag },
        payloadOf: (t) => ({ enabled: t.enabled }),
        payload: { enabled },
      });
      onSaved(saved.body.data, saved.etag);
      setSaid(`${kindLabel(template.kind)} ${saved.body.data.enabled ? 'on' : 'off'}: saved.`);
    } catch (reason) {
      onError(reason);
      setSaid(`${kindLabel(template.kind)}: not saved.`);
    } finally {
      setPending(undefined);
    }
  };

  return (
    <div className="switch-field">
      <label className="switch">
        <input
          type="checkbox"
          role="switch"
          checked={shown}
          aria-checked={shown}
          aria-labelledby={labelledBy}
          aria-describedby={describedBy}
          // Not disabled while saving: that would take the keyboard's focus away from it.
          onChange={(event) => {
            if (pending === undefined) void flip(event.target.checked);
          }}
        />
        <span className="switch-track" aria-hidden="true" />
        <span className="switch-state" aria-hidden="true">
          {shown ? 'On' : 'Off'}
        </span>
      </label>
      <span className="visually-hidden" role="status">
        {said}
      </span>
    </div>
  );
}
