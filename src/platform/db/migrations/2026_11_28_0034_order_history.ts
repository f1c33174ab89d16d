import { type Kysely, sql } from 'kysely';

/**
 * Issue 30, item 5: the order's history, one row per change (created, paid, items edited,
 * fulfilled, refunded, cancelled, notes…), with who made it. Written in the change's transaction
 * beside its outbox event; unlike `events`, which are pruned once delivered, these rows live as
 * long as their order. `actor_id` is the API key, admin user or customer id; null for the system
 * or when unknown (rows copied from events recorded before this table existed).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE order_history (
      id uuid PRIMARY KEY,
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      order_id uuid NOT NULL,
      type text NOT NULL,
      actor_type text NOT NULL CHECK (actor_type IN ('user', 'api_key', 'customer', 'system', 'unknown')),
      actor_id text,
      changes jsonb NOT NULL DEFAULT '{}',
      data jsonb NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL DEFAULT now(),
      seq bigint GENERATED ALWAYS AS IDENTITY,
      CONSTRAINT order_history_order_id_tenant_fkey FOREIGN KEY (store_id, order_id)
        REFERENCES orders (store_id, id) ON DELETE CASCADE
    )`.execute(db);
  await sql`CREATE INDEX order_history_order_idx ON order_history (store_id, order_id, seq)`.execute(db);
  // What the outbox still holds of older orders, so their history does not start empty. The actor
  // was not recorded then: only its kind, from the event's source where the event has one
  // (`order.updated`); the other events name none, so their actor is `unknown`, never a guess.
  await sql`
    INSERT INTO order_history (id, store_id, order_id, type, actor_type, actor_id, changes, data, created_at)
    SELECT e.id, e.store_id, o.id,
      CASE e.name WHEN 'order.created' THEN 'created' WHEN 'order.paid' THEN 'paid'
        WHEN 'order.cancelled' THEN 'cancelled' WHEN 'order.refunded' THEN 'refunded' ELSE 'updated' END,
      CASE e.data->>'source' WHEN 'admin' THEN 'user' WHEN 'api' THEN 'api_key' WHEN 'system' THEN 'system'
        ELSE 'unknown' END,
      NULL, COALESCE(e.data->'changes', '{}'), e.data - 'changes' - 'order', e.created_at
    FROM events e
    JOIN orders o ON o.store_id = e.store_id AND o.id::text = e.data->>'orderId'
    WHERE e.name IN ('order.created', 'order.paid', 'order.cancelled', 'order.refunded', 'order.updated')
    ORDER BY e.seq`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE order_history`.execute(db);
}
