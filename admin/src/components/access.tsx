import type { ReactNode } from 'react';
import { type Requirement, refusal } from '../lib/permissions';
import { Link } from '../lib/router';
import { useCan } from '../session';
import { Empty, PageHeader } from './ui';

/** Shows its children only to a user allowed `need` (a write button, an owner's card). */
export function Allowed({ need, children }: { need: Requirement; children: ReactNode }) {
  return useCan()(need) ? <>{children}</> : null;
}

/**
 * A page the user may not open: what is missing and whom to ask, and the pages they can open, so
 * that a staff member who lands here (the overview, a shared link) is not left at a dead end.
 */
export function Refused({
  title,
  need,
  open,
}: {
  title: string;
  need: Requirement;
  open: { to: string; label: string }[];
}) {
  return (
    <div className="stack-lg" data-testid="refused">
      <PageHeader title={title} />
      <Empty title="You can’t open this page">
        <p>{refusal(need)}</p>
        {open.length > 0 ? (
          <>
            <p>You can open:</p>
            <ul className="inline-list">
              {open.map((item) => (
                <li key={item.to}>
                  <Link to={item.to}>{item.label}</Link>
                </li>
              ))}
            </ul>
          </>
        ) : null}
      </Empty>
    </div>
  );
}
