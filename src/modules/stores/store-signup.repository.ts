import { sql } from 'kysely';
import type { Executor } from '../../platform/db/database.js';

/**
 * Serialises the choice of a slug from one base until the transaction ends: two sign-ups of "Bob's
 * Shop" at once cannot both pick bobs-shop (the second waits, then sees the first's row).
 */
export async function lockSlugBase(tx: Executor, base: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`store-slug:${base}`}, 0))`.execute(tx);
}

/** The slugs taken among `base` and `base-<n>`. */
export async function slugsLike(tx: Executor, base: string): Promise<string[]> {
  const rows = await tx
    .selectFrom('stores')
    .select('slug')
    .where((eb) => eb.or([eb('slug', '=', base), eb('slug', 'like', `${base}-%`)]))
    .execute();
  return rows.map((r) => r.slug);
}
