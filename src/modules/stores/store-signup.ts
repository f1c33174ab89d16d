import type { Executor } from '../../platform/db/database.js';
import { invalidRequest } from '../../platform/http/errors.js';
import { newId } from '../../platform/ids.js';
import { currencyCode, isTimezone } from './store-input.js';
import { lockSlugBase, slugsLike } from './store-signup.repository.js';
import * as stores from './stores.repository.js';

/** Room for "-<n>" within the 63 characters of a slug. */
const BASE_MAX = 56;

/** "Bob's Shop" → "bobs-shop": ASCII letters and digits, accents dropped, the rest one hyphen. */
export function slugBaseOf(name: string): string {
  const base = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/['’`]/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, BASE_MAX)
    .replace(/-+$/, '');
  return base || 'store';
}

/** The first of base, base-2, base-3 … not in `taken`. */
export function firstFreeSlug(base: string, taken: readonly string[]): string {
  const used = new Set(taken);
  if (!used.has(base)) return base;
  for (let n = 2; ; n++) if (!used.has(`${base}-${n}`)) return `${base}-${n}`;
}

/** The currency (default USD) and time zone (default UTC) of a new store, or 400 naming the field. */
export function storeLocale(input: { currency?: string; timezone?: string }) {
  const currency = currencyCode(input.currency ?? 'USD');
  const timezone = input.timezone ?? 'UTC';
  if (!isTimezone(timezone)) {
    const message = 'must be an IANA time zone, such as UTC or Europe/Paris';
    throw invalidRequest(`timezone ${message}`, [{ field: 'timezone', message }]);
  }
  return { currency, timezone };
}

/**
 * A new store, its first user and the user's owner membership, on the caller's transaction (sign-up
 * creates all three or none). The slug comes from the name, made unique. The e-mail must be free:
 * the users' unique e-mail index answers a race with 409.
 */
export async function createStoreWithOwner(
  tx: Executor,
  input: { email: string; passwordHash: string; storeName: string; currency: string; timezone: string },
) {
  const base = slugBaseOf(input.storeName);
  await lockSlugBase(tx, base);
  const slug = firstFreeSlug(base, await slugsLike(tx, base));
  const now = new Date();
  const store = await stores.insertStore(tx, {
    id: newId(),
    slug,
    name: input.storeName,
    currency: input.currency,
    timezone: input.timezone,
    created_at: now,
    updated_at: now,
  });
  const user = await stores.insertAdminUser(tx, {
    id: newId(),
    email: input.email,
    password_hash: input.passwordHash,
  });
  await stores.grantStoreAccess(tx, store.id, user.id, { role: 'owner' });
  return { store, user };
}

/** Whether a dashboard user has this e-mail (lower-case). */
export async function adminEmailTaken(db: Executor, email: string): Promise<boolean> {
  return (await stores.findAdminUserByEmail(db, email)) !== undefined;
}
