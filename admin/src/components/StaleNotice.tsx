import { Button } from './ui';

/** What a form says when someone else saved the same fields since it was opened (HTTP 412). */
export function StaleNotice({
  what,
  fields,
  onReload,
}: {
  what: string;
  fields: string[];
  onReload: () => void;
}) {
  return (
    <div className="banner banner-error" role="alert">
      <strong>
        Someone else changed this {what} since you opened it
        {/* None named: what changed is not shown in the form (a secret key). */}
        {fields.length ? `: ${fields.map((f) => f.replaceAll('_', ' ')).join(', ')}.` : '.'}
      </strong>
      <p>
        Nothing was saved. Reload to see the latest version; the changes you made in this form are then
        discarded, so note them first if you want to make them again.
      </p>
      <div className="form-actions">
        <Button onClick={onReload}>Reload</Button>
      </div>
    </div>
  );
}
