import { SCOPES } from '../../api/types';
import { Button, Checkbox, InlineError } from '../../components/ui';
import { permissionGroups } from '../../lib/permissions';

const GROUPS = permissionGroups(SCOPES);
const ALL = GROUPS.flatMap((g) => g.scopes.map((s) => s.scope));

/**
 * A staff member's permissions as checkboxes grouped as the scopes are, by resource (Orders: View,
 * Edit…); each box's name says its resource too ("Edit orders"), for a screen reader's list of them.
 */
export function PermissionPicker({
  value,
  onChange,
  error,
}: {
  value: string[];
  onChange: (permissions: string[]) => void;
  error?: string;
}) {
  const toggle = (scope: string, on: boolean) =>
    onChange(ALL.filter((s) => (s === scope ? on : value.includes(s))));
  return (
    <fieldset className="stack-sm" aria-describedby={error ? 'permissions-error' : undefined}>
      <legend>Permissions</legend>
      <div className="form-actions start">
        <Button variant="link" onClick={() => onChange(ALL)}>
          Select all
        </Button>
        <Button variant="link" onClick={() => onChange(ALL.filter((s) => s.endsWith(':read')))}>
          View only
        </Button>
        <Button variant="link" onClick={() => onChange([])}>
          None
        </Button>
      </div>
      <div className="permission-groups">
        {GROUPS.map((group) => (
          <fieldset key={group.resource} className="permission-group">
            <legend>{group.label}</legend>
            {group.scopes.map(({ scope, label }) => (
              <Checkbox
                key={scope}
                label={
                  <>
                    {label}
                    <span className="visually-hidden"> {group.label.toLowerCase()}</span>
                  </>
                }
                hint={<code>{scope}</code>}
                checked={value.includes(scope)}
                onChange={(e) => toggle(scope, e.target.checked)}
              />
            ))}
          </fieldset>
        ))}
      </div>
      <InlineError id="permissions" message={error} />
    </fieldset>
  );
}
