import { type Kysely, sql } from 'kysely';

/**
 * UUID v7 made by PostgreSQL, for rows a statement creates in numbers only it knows (a push per
 * device of a buyer, inserted by `INSERT … SELECT` in the order's single write statement). Same
 * layout as the application's ids: 48-bit Unix milliseconds, version 7, variant 10, random bits from
 * gen_random_uuid() (core since PostgreSQL 13; PostgreSQL 18's own uuidv7() is not on 15).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE FUNCTION emporium_uuid_v7() RETURNS uuid LANGUAGE sql VOLATILE PARALLEL SAFE AS $$
      SELECT encode(
        set_bit(set_bit(
          overlay(uuid_send(gen_random_uuid())
            PLACING substring(int8send(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3)
            FROM 1 FOR 6),
          52, 1), 53, 1),
        'hex')::uuid
    $$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP FUNCTION IF EXISTS emporium_uuid_v7()`.execute(db);
}
