/** The audit log's filters as the dashboard's form holds them, and as GET /api/v1/audit-log takes them. */
import { fromZonedInput } from '../../lib/zoned-time';

export interface AuditFilters {
  resource_type: string;
  actor_id: string;
  /** Days (YYYY-MM-DD) in the store's time zone; `to` includes its whole day. */
  from: string;
  to: string;
}

export const NO_FILTERS: AuditFilters = { resource_type: '', actor_id: '', from: '', to: '' };

/** The day after a YYYY-MM-DD day, as a calendar (no time zone involved). */
export function nextDay(day: string): string {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + 1)).toISOString().slice(0, 10);
}

/** The query of one page: the days become instants at the store's midnights. */
export function auditQuery(filters: AuditFilters, timeZone: string, cursor?: string) {
  const from = filters.from ? fromZonedInput(`${filters.from}T00:00`, timeZone) : null;
  const to = filters.to ? fromZonedInput(`${nextDay(filters.to)}T00:00`, timeZone) : null;
  return {
    resource_type: filters.resource_type.trim() || undefined,
    actor_id: filters.actor_id || undefined,
    from: from ?? undefined,
    to: to ?? undefined,
    limit: 50,
    cursor,
  };
}
