import { Link, useLocation } from '../../lib/router';
import { useAccess } from '../../session';

const SECTIONS = [
  { to: '/settings', label: 'General' },
  { to: '/settings/shipping', label: 'Shipping' },
  { to: '/settings/taxes', label: 'Taxes' },
  { to: '/settings/notifications', label: 'Notifications' },
  { to: '/settings/staff', label: 'Staff', ownerOnly: true },
];

/**
 * The settings' sections, as links (each its own address, so a section can be bookmarked and the
 * browser's Back works); the current one is marked for screen readers.
 */
export function SettingsTabs() {
  const { path } = useLocation();
  const { role } = useAccess();
  return (
    <nav className="tabs" aria-label="Settings sections">
      <ul>
        {SECTIONS.filter((s) => !s.ownerOnly || role === 'owner').map((s) => (
          <li key={s.to}>
            <Link to={s.to} aria-current={path === s.to ? 'page' : undefined}>
              {s.label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}
