import { type Kysely, sql } from 'kysely';

/**
 * The number of products of each store per status, kept by triggers in the writing transaction, so
 * the merchant list's exact total is one primary-key read instead of a count(*) over the catalogue
 * (100,000 products: ~10 ms of PostgreSQL time on every page).
 *
 * Inserts and deletes are counted once per statement (transition tables: a 1,000-row bulk insert
 * updates each counter once); a status change per row, only when the status really changes (the
 * WHEN clause is checked without calling the function, so stock updates pay nothing). Each function
 * locks the counter rows it changes in (store_id, status) order first: two transactions moving
 * products between the same two statuses in opposite directions queue instead of deadlocking.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE product_counts (
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      status text NOT NULL,
      count bigint NOT NULL DEFAULT 0 CHECK (count >= 0),
      PRIMARY KEY (store_id, status)
    )`.execute(db);

  await sql`
    CREATE FUNCTION product_counts_add(changes jsonb) RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      -- changes: [{ "s": store_id, "t": status, "n": delta }]
      INSERT INTO product_counts (store_id, status, count)
      SELECT DISTINCT (c->>'s')::uuid, c->>'t', 0 FROM jsonb_array_elements(changes) c
      ON CONFLICT (store_id, status) DO NOTHING;
      PERFORM 1 FROM product_counts p
      WHERE (p.store_id, p.status) IN (SELECT (c->>'s')::uuid, c->>'t' FROM jsonb_array_elements(changes) c)
      ORDER BY p.store_id, p.status
      FOR UPDATE;
      UPDATE product_counts p SET count = p.count + d.n
      FROM (
        SELECT (c->>'s')::uuid AS store_id, c->>'t' AS status, sum((c->>'n')::bigint) AS n
        FROM jsonb_array_elements(changes) c GROUP BY 1, 2
      ) d
      WHERE p.store_id = d.store_id AND p.status = d.status AND d.n <> 0;
    END $$`.execute(db);

  await sql`
    CREATE FUNCTION product_counts_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM product_counts_add(
        (SELECT jsonb_agg(jsonb_build_object('s', store_id, 't', status, 'n', n))
         FROM (SELECT store_id, status, count(*) AS n FROM new_rows GROUP BY 1, 2) g));
      RETURN NULL;
    END $$`.execute(db);
  await sql`
    CREATE FUNCTION product_counts_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM product_counts_add(
        (SELECT jsonb_agg(jsonb_build_object('s', store_id, 't', status, 'n', -n))
         FROM (SELECT store_id, status, count(*) AS n FROM old_rows GROUP BY 1, 2) g));
      RETURN NULL;
    END $$`.execute(db);
  await sql`
    CREATE FUNCTION product_counts_status_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM product_counts_add(jsonb_build_array(
        jsonb_build_object('s', OLD.store_id, 't', OLD.status, 'n', -1),
        jsonb_build_object('s', NEW.store_id, 't', NEW.status, 'n', 1)));
      RETURN NULL;
    END $$`.execute(db);

  await sql`
    CREATE TRIGGER product_counts_insert AFTER INSERT ON products
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION product_counts_inserted()`.execute(
    db,
  );
  await sql`
    CREATE TRIGGER product_counts_delete AFTER DELETE ON products
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION product_counts_deleted()`.execute(
    db,
  );
  await sql`
    CREATE TRIGGER product_counts_status AFTER UPDATE OF status, store_id ON products
    FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.store_id IS DISTINCT FROM NEW.store_id)
    EXECUTE FUNCTION product_counts_status_changed()`.execute(db);

  // Existing catalogues, counted under a lock that holds product writes until the migration commits.
  await sql`LOCK TABLE products IN SHARE MODE`.execute(db);
  await sql`
    INSERT INTO product_counts (store_id, status, count)
    SELECT store_id, status, count(*) FROM products GROUP BY store_id, status`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TRIGGER product_counts_status ON products`.execute(db);
  await sql`DROP TRIGGER product_counts_delete ON products`.execute(db);
  await sql`DROP TRIGGER product_counts_insert ON products`.execute(db);
  await sql`DROP FUNCTION product_counts_status_changed(), product_counts_deleted(), product_counts_inserted(), product_counts_add(jsonb)`.execute(
    db,
  );
  await sql`DROP TABLE product_counts`.execute(db);
}
