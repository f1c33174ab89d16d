import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../platform/db/database.js';
import { newId } from '../../platform/ids.js';
import { automaticCandidatesCompiled, automaticCandidatesQuery } from './discounts.repository.js';

describe('automaticCandidatesCompiled', () => {
  it('is the query Kysely compiles, for every store and time, after its text is kept', async () => {
    // Compiling needs no connection: the pool never connects here.
    const handle = openDatabase('postgres://nobody@127.0.0.1:1/none');
    try {
      for (let n = 0; n < 3; n++) {
        const storeId = newId();
        const now = new Date(Date.UTC(2026, 0, 1 + n));
        const kept = automaticCandidatesCompiled(handle.db, storeId, now);
        const built = automaticCandidatesQuery(handle.db, storeId, now).compile();
        expect(kept.sql).toBe(built.sql);
        expect(kept.parameters).toEqual(built.parameters);
      }
    } finally {
      await handle.close();
    }
  });
});
