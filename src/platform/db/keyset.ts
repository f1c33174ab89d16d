import { type RawBuilder, sql } from 'kysely';

/**
 * Keyset pagination over (created_at, id), newest first. created_at is compared at its full
 * microsecond precision: a key rounded to JavaScript's milliseconds would skip the rows created in the
 * same millisecond after the rounded instant.
 */
export interface CreatedKey {
  /** created_at in microseconds since 1970, as a decimal string. */
  t: string;
  i: string;
}

/** The column to select beside each row: its created_at in exact microseconds. */
export function createdMicros(table: string): RawBuilder<string> {
  return sql<string>`(extract(epoch from ${sql.ref(`${table}.created_at`)}) * 1000000)::bigint::text`;
}

/** Rows strictly after `key` in (created_at DESC, id DESC) order: one range of the (store_id, created_at, id) index. */
export function olderThan(table: string, key: CreatedKey): RawBuilder<boolean> {
  return sql<boolean>`(${sql.ref(`${table}.created_at`)}, ${sql.ref(`${table}.id`)}) < (timestamptz 'epoch' + ${key.t}::bigint * interval '1 microsecond', ${key.i}::uuid)`;
}

/**
 * createdMicros and olderThan as SQL text, for statements written once as text (prepared): `table`
 * is a name in the code, `t` and `i` the $n markers of the key's parts.
 */
export const createdMicrosText = (table: string) =>
  `(extract(epoch from ${table}.created_at) * 1000000)::bigint::text`;
export const olderThanText = (table: string, t: string, i: string) =>
  `(${table}.created_at, ${table}.id) < (timestamptz 'epoch' + ${t}::bigint * interval '1 microsecond', ${i}::uuid)`;
