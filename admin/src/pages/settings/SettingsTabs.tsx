import { Link, useLocation } from '../../lib/router';

const SECTIONS = [
  { to: '/settings', label: 'General' },
  { to: '/settings/shipping', label: 'Shipping' },
  { to: '/settings/taxes', label: 'Taxes' },
  { to: '/settings/notifications', label: 'Notifications' },
];

/**
 * The settings' sections, as links (each its own address, so a section can be bookmarked and the
 * browser's Back works); the current one is marked for screen readers.
 */
export function SettingsTabs() {
  const { path } = useLocation();
  return (
    <nav className="tabs" aria-label="Settings sections">
      <ul>
        {SECTIONS.map((s) => (
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
