-- Order intake (uploads, order creation), the order lifecycle's audit trail, the durable job queue and
-- Idempotency-Key records. Same file on PGlite and PostgreSQL.

-- The original asset of an order created through the API (object key, announced type and size).
ALTER TABLE orders ADD COLUMN asset_key text;
ALTER TABLE orders ADD COLUMN asset_content_type text;
ALTER TABLE orders ADD COLUMN asset_size bigint;

-- An upload is announced (POST /v1/uploads), its bytes go straight to object storage with a presigned
-- PUT, and exactly one order consumes it. Unused uploads past their expiry are deleted (row and bytes)
-- by the cleanup job, so bytes never outlive their usefulness without a way to find them.
CREATE TABLE uploads (
  upload_id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id),
  -- The user who announced it (an API client acts as its user); only that user may consume it.
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  object_key text NOT NULL,
  file_name text NOT NULL CHECK (length(file_name) BETWEEN 1 AND 1000),
  content_type text NOT NULL,
  size bigint NOT NULL CHECK (size >= 0),
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  used_by_order text COLLATE "C"
);
CREATE INDEX uploads_unused_expiry_idx ON uploads (expires_at) WHERE used_at IS NULL;

-- Every state change of every order: who, when, from, to, why. from_state is NULL for the creation.
CREATE TABLE order_events (
  id bigserial PRIMARY KEY,
  order_id text COLLATE "C" NOT NULL REFERENCES orders (order_id) ON DELETE CASCADE,
  organization_id uuid NOT NULL,
  from_state text,
  to_state text NOT NULL,
  -- 'user' (a signed-in person or an API client's user), 'system' (analysis, the job queue).
  actor_kind text NOT NULL CHECK (actor_kind IN ('user', 'system')),
  -- user id, or the name of the system component.
  actor_id text NOT NULL,
  -- e-mail of the user, or the API client id it acted through, for reading the trail without joins.
  actor_label text,
  reason text,
  occurred_at timestamptz NOT NULL
);
CREATE INDEX order_events_order_idx ON order_events (order_id, id);

-- Durable background jobs, claimed with FOR UPDATE SKIP LOCKED by any number of workers. A running
-- job holds a lease (locked_until) renewed by its worker's heartbeat; a job whose lease ran out (its
-- worker died) is claimed again. Failures are retried with exponential backoff up to max_attempts.
CREATE TABLE jobs (
  id bigserial PRIMARY KEY,
  kind text NOT NULL,
  payload jsonb NOT NULL DEFAULT '{}',
  state text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'running', 'done', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  max_attempts integer NOT NULL DEFAULT 5 CHECK (max_attempts >= 1),
  run_at timestamptz NOT NULL,
  locked_by text,
  locked_until timestamptz,
  last_error text,
  -- At most one unfinished job per key (e.g. one analysis per order).
  singleton_key text COLLATE "C",
  created_at timestamptz NOT NULL,
  finished_at timestamptz
);
CREATE INDEX jobs_queued_idx ON jobs (run_at, id) WHERE state = 'queued';
CREATE INDEX jobs_running_lease_idx ON jobs (locked_until) WHERE state = 'running';
CREATE INDEX jobs_finished_idx ON jobs (finished_at) WHERE state IN ('done', 'failed');
CREATE UNIQUE INDEX jobs_singleton_idx ON jobs (singleton_key) WHERE state IN ('queued', 'running');

-- Idempotency-Key records: one per (caller, key) for 24 hours. A 'running' row whose lease expired
-- (the instance died mid-request) may be taken over by a retry.
CREATE TABLE idempotency_keys (
  scope text COLLATE "C" NOT NULL,
  idempotency_key text COLLATE "C" NOT NULL,
  request_hash text NOT NULL,
  state text NOT NULL CHECK (state IN ('running', 'done')),
  response_status integer,
  response_headers jsonb,
  response_body text,
  created_at timestamptz NOT NULL,
  locked_until timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (scope, idempotency_key)
);
CREATE INDEX idempotency_keys_expiry_idx ON idempotency_keys (expires_at);
