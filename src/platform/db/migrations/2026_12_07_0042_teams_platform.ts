import { type Kysely, sql } from 'kysely';

/**
 * Contract §14: a store's team (owner or staff with permissions), invitations, the audit log,
 * self-service sign-up, operators and their sessions, and a store's suspension and deletion.
 * Existing users keep every right they had: their memberships become owners.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // Members: the role every existing row had by default ('owner'); staff hold API scopes.
  await sql`UPDATE admin_user_stores SET role = 'owner' WHERE role NOT IN ('owner', 'staff')`.execute(db);
  await sql`
    ALTER TABLE admin_user_stores
      ADD CONSTRAINT admin_user_stores_role_check CHECK (role IN ('owner', 'staff')),
      ADD COLUMN permissions text[] NOT NULL DEFAULT '{}',
      ADD COLUMN created_at timestamptz NOT NULL DEFAULT now()`.execute(db);
  await sql`CREATE INDEX admin_user_stores_user_idx ON admin_user_stores (admin_user_id)`.execute(db);
  await sql`ALTER TABLE admin_users ADD COLUMN name text`.execute(db);
  // A removed member's sessions for the store go at once (DELETE … WHERE admin_user_id AND store_id).
  await sql`CREATE INDEX admin_sessions_user_store_idx ON admin_sessions (admin_user_id, store_id)`.execute(
    db,
  );

  // An invitation is a single-use link valid 7 days; only the SHA-256 of its token is kept.
  await sql`
    CREATE TABLE staff_invitations (
      id uuid PRIMARY KEY,
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      email text NOT NULL,
      permissions text[] NOT NULL DEFAULT '{}',
      token_hash bytea NOT NULL UNIQUE,
      invited_by uuid REFERENCES admin_users (id) ON DELETE SET NULL,
      expires_at timestamptz NOT NULL,
      accepted_at timestamptz,
      accepted_by uuid REFERENCES admin_users (id) ON DELETE SET NULL,
      revoked_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT staff_invitations_tenant_key UNIQUE (store_id, id)
    )`.execute(db);
  await sql`CREATE INDEX staff_invitations_store_idx ON staff_invitations (store_id, created_at DESC)`.execute(
    db,
  );

  // One row per write; actor_name is kept as it was then (a key renamed or a user removed later).
  await sql`
    CREATE TABLE audit_log (
      id uuid PRIMARY KEY,
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      actor_type text NOT NULL CHECK (actor_type IN ('user', 'api_key', 'system')),
      actor_id text,
      actor_name text,
      action text NOT NULL,
      resource_type text NOT NULL,
      resource_id text,
      ip text,
      created_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT audit_log_tenant_key UNIQUE (store_id, id)
    )`.execute(db);
  await sql`CREATE INDEX audit_log_resource_idx ON audit_log (store_id, resource_type, resource_id, id DESC)`.execute(
    db,
  );
  // Only the tenant key and a resource's history are indexed: each index is one more B-tree write on
  // every merchant write (the audit bench). An actor filter reads the store's newest rows through the
  // tenant key; the hourly pruning scans from the table's oldest end, where the old rows are.

  // A sign-up waiting for its mailed code: one per e-mail address, replaced by a new request.
  await sql`
    CREATE TABLE signup_requests (
      email text PRIMARY KEY,
      code_hash bytea NOT NULL,
      password_hash text NOT NULL,
      store_name text NOT NULL,
      currency text NOT NULL,
      timezone text NOT NULL,
      attempts integer NOT NULL DEFAULT 0,
      expires_at timestamptz NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE INDEX signup_requests_expiry_idx ON signup_requests (expires_at)`.execute(db);

  // The platform's operators: not store users, with their own sessions and cookie.
  await sql`
    CREATE TABLE operators (
      id uuid PRIMARY KEY,
      email text NOT NULL,
      password_hash text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      last_login_at timestamptz
    )`.execute(db);
  await sql`CREATE UNIQUE INDEX operators_email_key ON operators (lower(email))`.execute(db);
  await sql`
    CREATE TABLE operator_sessions (
      id uuid PRIMARY KEY,
      operator_id uuid NOT NULL REFERENCES operators (id) ON DELETE CASCADE,
      token_hash bytea NOT NULL UNIQUE,
      expires_at timestamptz NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE INDEX operator_sessions_expiry_idx ON operator_sessions (expires_at)`.execute(db);

  // Suspended: closed to everyone, nothing deleted. Deleting: the job runner removes it in batches.
  await sql`ALTER TABLE stores DROP CONSTRAINT stores_status_check`.execute(db);
  await sql`
    ALTER TABLE stores
      ADD CONSTRAINT stores_status_check CHECK (status IN ('active', 'disabled', 'suspended', 'deleting')),
      ADD COLUMN suspended_at timestamptz,
      ADD COLUMN suspension_reason text,
      ADD COLUMN deletion_requested_at timestamptz,
      ADD COLUMN deletion_locked_until timestamptz,
      ADD COLUMN onboarding jsonb NOT NULL DEFAULT '{}',
      ADD COLUMN last_activity_at timestamptz`.execute(db);
  await sql`CREATE INDEX stores_deleting_idx ON stores (deletion_requested_at) WHERE status = 'deleting'`.execute(
    db,
  );
  await sql`CREATE INDEX stores_created_idx ON stores (created_at DESC, id DESC)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS stores_created_idx`.execute(db);
  await sql`DROP INDEX IF EXISTS stores_deleting_idx`.execute(db);
  await sql`UPDATE stores SET status = 'disabled' WHERE status IN ('suspended', 'deleting')`.execute(db);
  await sql`ALTER TABLE stores DROP CONSTRAINT stores_status_check`.execute(db);
  await sql`
    ALTER TABLE stores
      ADD CONSTRAINT stores_status_check CHECK (status IN ('active', 'disabled')),
      DROP COLUMN suspended_at,
      DROP COLUMN suspension_reason,
      DROP COLUMN deletion_requested_at,
      DROP COLUMN deletion_locked_until,
      DROP COLUMN onboarding,
      DROP COLUMN last_activity_at`.execute(db);
  await sql`DROP TABLE operator_sessions`.execute(db);
  await sql`DROP TABLE operators`.execute(db);
  await sql`DROP TABLE signup_requests`.execute(db);
  await sql`DROP TABLE audit_log`.execute(db);
  await sql`DROP TABLE staff_invitations`.execute(db);
  await sql`DROP INDEX IF EXISTS admin_sessions_user_store_idx`.execute(db);
  await sql`ALTER TABLE admin_users DROP COLUMN name`.execute(db);
  await sql`DROP INDEX IF EXISTS admin_user_stores_user_idx`.execute(db);
  await sql`
    ALTER TABLE admin_user_stores
      DROP CONSTRAINT admin_user_stores_role_check,
      DROP COLUMN permissions,
      DROP COLUMN created_at`.execute(db);
}
