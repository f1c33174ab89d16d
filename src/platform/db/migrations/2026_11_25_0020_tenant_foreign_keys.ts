import { type Kysely, sql } from 'kysely';

/**
 * Tenancy enforced by the schema: a row of one store can never point at another store's row, even
 * through a bug. Every link between tenant tables becomes `(store_id, x_id) → parent (store_id, id)`
 * (or, for ids meant to outlive their row, a trigger with the same meaning), so the database itself
 * refuses a cross-store link with SQLSTATE 23503 like any other foreign-key violation.
 *
 * Three kinds of link, listed in TENANT_LINKS:
 * - `cascade`: the single-column foreign key (ON DELETE CASCADE) is replaced by a composite one with
 *   the same action.
 * - `set_null`: nullable links whose row is kept when the parent goes (ON DELETE SET NULL). A
 *   composite SET NULL would null store_id too, and `SET NULL (column)` needs PostgreSQL 15 while
 *   Emporium supports 14. So the single-column key stays and does the SET NULL, and a composite key
 *   (MATCH SIMPLE: a row whose link is NULL is not checked) is added beside it, DEFERRABLE INITIALLY
 *   DEFERRED. Deferred because its own ON DELETE check (NO ACTION) would otherwise race the SET
 *   NULL: both are row triggers on the parent fired in the order of their names, which follow
 *   trigger OIDs and so are not ours to choose; checked at commit, the SET NULL has always run.
 * - `reference`: ids without a foreign key, most because they outlive their row by design (order
 *   lines and inventory history keep the id of a deleted product; a discount stays limited to a
 *   deleted product so it never widens to the whole cart; an order keeps the id of a deleted
 *   discount; a delivery keeps the id of a pruned event), and a redemption's order, which the order
 *   transaction writes before the order itself (and the discounts service may redeem for an order
 *   its caller writes). A foreign key would delete or null them, or refuse the redemption, so
 *   triggers check instead that the id, when it names a row, names a row of the same store: one
 *   set-based check per INSERT statement (transition table), one per row when an UPDATE changes the
 *   link or store_id.
 *
 * The analytics tables are not linked: only the analytics functions write them, from order and line
 * rows these constraints already hold to their store.
 *
 * Existing data is checked first: any cross-store link fails the migration with every offending link
 * and its count, and nothing is changed (no data is deleted).
 *
 * Foreign keys are added NOT VALID: adding one is then a catalogue change that checks new writes at
 * once, without scanning the table. The scan, VALIDATE CONSTRAINT, is run by migrateToLatest after
 * the migrations commit, each constraint in its own transaction, under SHARE UPDATE EXCLUSIVE on the
 * child and ROW SHARE on the parent, which block neither reads nor writes. Inside the migration
 * transaction it would buy nothing: Kysely runs every pending migration in one transaction, and the
 * SHARE ROW EXCLUSIVE locks taken by ADD CONSTRAINT (which block writes) would be held through the
 * scans until commit. What still blocks writes while the migration runs is the build of the
 * `(store_id, id)` unique indexes (SHARE lock on each parent). Measured on PostgreSQL 15 here with
 * 200,000 orders, 600,000 lines, 200,000 fulfilments and 20,000 customers: the migration 1.3 s, the
 * validation after it 0.7 s; on an empty database 0.2–0.7 s and 0.1–0.2 s (about 80 DDL statements).
 */

type LinkKind = 'cascade' | 'set_null' | 'reference';

export interface TenantLink {
  table: string;
  column: string;
  parent: string;
  kind: LinkKind;
}

const link = (table: string, column: string, parent: string, kind: LinkKind): TenantLink => ({
  table,
  column,
  parent,
  kind,
});

/** Every link between tenant tables, enumerated from the schema of the migrations before this one. */
export const TENANT_LINKS: readonly TenantLink[] = [
  link('product_variants', 'product_id', 'products', 'cascade'),
  link('product_media', 'product_id', 'products', 'cascade'),
  link('product_categories', 'product_id', 'products', 'cascade'),
  link('product_categories', 'category_id', 'categories', 'cascade'),
  link('categories', 'parent_id', 'categories', 'set_null'),
  link('inventory_adjustments', 'product_id', 'products', 'reference'),
  link('inventory_adjustments', 'variant_id', 'product_variants', 'reference'),
  link('discount_products', 'discount_id', 'discounts', 'cascade'),
  link('discount_products', 'product_id', 'products', 'reference'),
  link('discount_categories', 'discount_id', 'discounts', 'cascade'),
  link('discount_categories', 'category_id', 'categories', 'reference'),
  link('discount_redemptions', 'discount_id', 'discounts', 'cascade'),
  link('discount_redemptions', 'customer_id', 'customers', 'set_null'),
  link('discount_redemptions', 'order_id', 'orders', 'reference'),
  link('orders', 'customer_id', 'customers', 'set_null'),
  link('orders', 'discount_id', 'discounts', 'reference'),
  link('order_line_items', 'order_id', 'orders', 'cascade'),
  link('order_line_items', 'product_id', 'products', 'reference'),
  link('order_line_items', 'variant_id', 'product_variants', 'reference'),
  link('order_fulfillments', 'order_id', 'orders', 'cascade'),
  link('customer_addresses', 'customer_id', 'customers', 'cascade'),
  link('customer_sessions', 'customer_id', 'customers', 'cascade'),
  link('wishlist_items', 'customer_id', 'customers', 'cascade'),
  link('wishlist_items', 'product_id', 'products', 'cascade'),
  link('customer_devices', 'customer_id', 'customers', 'cascade'),
  link('notification_preferences', 'customer_id', 'customers', 'cascade'),
  link('push_notifications', 'customer_id', 'customers', 'cascade'),
  link('push_notifications', 'device_id', 'customer_devices', 'cascade'),
  link('webhook_deliveries', 'webhook_id', 'webhooks', 'cascade'),
  link('webhook_deliveries', 'event_id', 'events', 'reference'),
  link('webhook_attempts', 'webhook_id', 'webhooks', 'cascade'),
  link('webhook_attempts', 'delivery_id', 'webhook_deliveries', 'cascade'),
];

/** The name of the composite foreign key, or of the trigger, that holds a link to its store. */
export function tenantConstraintName(l: TenantLink): string {
  return l.kind === 'reference'
    ? `${l.table}_${l.column}_tenant_check`
    : `${l.table}_${l.column}_tenant_fkey`;
}

/** Parents of composite foreign keys: they need UNIQUE (store_id, id) as the key's target. */
const keyedParents = (): string[] => [
  ...new Set(TENANT_LINKS.filter((l) => l.kind !== 'reference').map((l) => l.parent)),
];

const tenantKeyName = (parent: string) => `${parent}_tenant_key`;
const checkFunctionName = (l: TenantLink) => `tenant_check_${l.table}_${l.column}`;

/** How many rows of a link point at a row of another store. */
async function crossStoreRows(db: Kysely<unknown>, l: TenantLink): Promise<number> {
  const { rows } = await sql<{ n: number | string }>`
    SELECT count(*) AS n
    FROM ${sql.table(l.table)} c
    JOIN ${sql.table(l.parent)} p ON p.id = c.${sql.ref(l.column)}
    WHERE p.store_id <> c.store_id`.execute(db);
  return Number(rows[0]?.n ?? 0);
}

/** The single-column foreign key(s) of `table (column) → parent`, whatever they were named. */
async function singleColumnKeys(db: Kysely<unknown>, l: TenantLink): Promise<string[]> {
  const { rows } = await sql<{ conname: string }>`
    SELECT c.conname
    FROM pg_constraint c
    JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
    WHERE c.contype = 'f' AND c.conrelid = to_regclass(${l.table}) AND c.confrelid = to_regclass(${l.parent})
      AND cardinality(c.conkey) = 1 AND a.attname = ${l.column}`.execute(db);
  return rows.map((r) => r.conname);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  // 1. Existing data, before any lock that blocks writes: reads only.
  const problems: string[] = [];
  for (const l of TENANT_LINKS) {
    const n = await crossStoreRows(db, l);
    const rows = n === 1 ? '1 row points' : `${n} rows point`;
    if (n > 0) problems.push(`${l.table}.${l.column} → ${l.parent}: ${rows} at a row of another store`);
  }
  if (problems.length) {
    throw new Error(
      'tenant foreign keys: existing rows link one store to another; nothing was changed. ' +
        `Correct or remove these rows, then migrate again:\n  - ${problems.join('\n  - ')}`,
    );
  }

  // 2. The targets of the composite keys. The primary key on id stays (lookups by id alone and the
  // single-column SET NULL keys use it): this is an extra index per parent.
  for (const parent of keyedParents()) {
    await sql`ALTER TABLE ${sql.table(parent)}
      ADD CONSTRAINT ${sql.ref(tenantKeyName(parent))} UNIQUE (store_id, id)`.execute(db);
  }

  // 3. The links. NOT VALID: checked for new writes from now on, validated after commit (see above).
  for (const l of TENANT_LINKS) {
    const name = sql.ref(tenantConstraintName(l));
    const table = sql.table(l.table);
    const column = sql.ref(l.column);
    const parent = sql.table(l.parent);
    if (l.kind === 'cascade') {
      const old = await singleColumnKeys(db, l);
      if (old.length === 0) throw new Error(`tenant foreign keys: no foreign key on ${l.table}.${l.column}`);
      await sql`ALTER TABLE ${table}
        ${sql.join(old.map((o) => sql`DROP CONSTRAINT ${sql.ref(o)}`))},
        ADD CONSTRAINT ${name} FOREIGN KEY (store_id, ${column}) REFERENCES ${parent} (store_id, id)
          ON DELETE CASCADE NOT VALID`.execute(db);
    } else if (l.kind === 'set_null') {
      await sql`ALTER TABLE ${table}
        ADD CONSTRAINT ${name} FOREIGN KEY (store_id, ${column}) REFERENCES ${parent} (store_id, id)
          DEFERRABLE INITIALLY DEFERRED NOT VALID`.execute(db);
    } else {
      await createReferenceCheck(db, l);
    }
  }
}

/**
 * A reference that may outlive its row: the triggers refuse an id that names a row of another store
 * (an id naming no row is allowed, as before). Static SQL in a function per link, so its plans are
 * cached per connection.
 */
async function createReferenceCheck(db: Kysely<unknown>, l: TenantLink): Promise<void> {
  const fn = sql.raw(checkFunctionName(l));
  const trigger = tenantConstraintName(l);
  const table = sql.table(l.table);
  const column = sql.ref(l.column);
  const parent = sql.table(l.parent);
  const message = sql.lit(`insert or update on table "${l.table}" violates tenant reference "${trigger}"`);
  const detail = sql.lit(`Key (store_id, ${l.column})=(%s, %s) is a row of "${l.parent}" in another store.`);
  await sql`
    CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $fn$
    DECLARE
      bad record;
    BEGIN
      IF TG_LEVEL = 'STATEMENT' THEN
        SELECT n.store_id, n.${column} AS ref INTO bad
        FROM new_rows n JOIN ${parent} p ON p.id = n.${column}
        WHERE p.store_id <> n.store_id
        LIMIT 1;
      ELSE
        SELECT NEW.store_id, NEW.${column} AS ref INTO bad
        FROM ${parent} p
        WHERE p.id = NEW.${column} AND p.store_id <> NEW.store_id;
      END IF;
      IF bad.ref IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'foreign_key_violation', MESSAGE = ${message},
          DETAIL = format(${detail}, bad.store_id, bad.ref),
          TABLE = ${sql.lit(l.table)}, COLUMN = ${sql.lit(l.column)}, CONSTRAINT = ${sql.lit(trigger)};
      END IF;
      RETURN NULL;
    END
    $fn$`.execute(db);
  await sql`
    CREATE TRIGGER ${sql.raw(`${trigger}_insert`)} AFTER INSERT ON ${table}
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`.execute(db);
  await sql`
    CREATE TRIGGER ${sql.raw(`${trigger}_update`)} AFTER UPDATE OF store_id, ${column} ON ${table}
    FOR EACH ROW WHEN (NEW.${column} IS NOT NULL
      AND (NEW.${column} IS DISTINCT FROM OLD.${column} OR NEW.store_id IS DISTINCT FROM OLD.store_id))
    EXECUTE FUNCTION ${fn}()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const l of [...TENANT_LINKS].reverse()) {
    const table = sql.table(l.table);
    const name = tenantConstraintName(l);
    if (l.kind === 'reference') {
      await sql`DROP TRIGGER IF EXISTS ${sql.raw(`${name}_insert`)} ON ${table}`.execute(db);
      await sql`DROP TRIGGER IF EXISTS ${sql.raw(`${name}_update`)} ON ${table}`.execute(db);
      await sql`DROP FUNCTION IF EXISTS ${sql.raw(checkFunctionName(l))}()`.execute(db);
      continue;
    }
    await sql`ALTER TABLE ${table} DROP CONSTRAINT IF EXISTS ${sql.ref(name)}`.execute(db);
    if (l.kind === 'cascade') {
      await sql`ALTER TABLE ${table}
        ADD CONSTRAINT ${sql.ref(`${l.table}_${l.column}_fkey`)} FOREIGN KEY (${sql.ref(l.column)})
          REFERENCES ${sql.table(l.parent)} (id) ON DELETE CASCADE`.execute(db);
    }
  }
  for (const parent of keyedParents()) {
    await sql`ALTER TABLE ${sql.table(parent)} DROP CONSTRAINT IF EXISTS ${sql.ref(tenantKeyName(parent))}`.execute(
      db,
    );
  }
}
