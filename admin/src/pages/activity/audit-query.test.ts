import { describe, expect, it } from 'vitest';
import { auditQuery, NO_FILTERS, nextDay } from './audit-query';

describe('nextDay', () => {
  it.each([
    ['2026-12-07', '2026-12-08'],
    ['2026-12-31', '2027-01-01'],
    ['2028-02-28', '2028-02-29'],
  ])('%s → %s', (day, next) => {
    expect(nextDay(day)).toBe(next);
  });
});

describe('auditQuery', () => {
  it('sends only the filters given', () => {
    expect(auditQuery(NO_FILTERS, 'UTC')).toEqual({ limit: 50 });
  });

  it('reads the days at the store’s midnights, the last day whole', () => {
    const query = auditQuery(
      { resource_type: ' order ', actor_id: 'u1', from: '2026-12-01', to: '2026-12-07' },
      'Europe/Paris',
      'c1',
    );
    expect(query).toEqual({
      resource_type: 'order',
      actor_id: 'u1',
      from: '2026-11-30T23:00:00.000Z',
      to: '2026-12-07T23:00:00.000Z',
      limit: 50,
      cursor: 'c1',
    });
  });
});
