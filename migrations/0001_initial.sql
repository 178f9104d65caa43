-- certdesk initial schema. PostgreSQL only (the same file runs on PGlite and on a server).
-- Identifiers compared across databases (order ids, client ids, e-mail keys) use COLLATE "C" so that
-- keyset ordering and uniqueness are the same on PGlite and on any server locale.

CREATE TABLE organizations (
  id uuid PRIMARY KEY,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  -- Organization-level detection thresholds; NULL means the built-in default.
  object_flag_threshold double precision,
  weighted_confidence_threshold double precision,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE users (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id),
  email text NOT NULL CHECK (length(email) BETWEEN 3 AND 320),
  -- lower(email): the key for uniqueness, sign-in and personal-order ownership.
  email_key text COLLATE "C" NOT NULL UNIQUE,
  username text NOT NULL CHECK (length(username) BETWEEN 1 AND 200),
  is_admin boolean NOT NULL DEFAULT false,
  password_hash text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX users_organization_idx ON users (organization_id);

CREATE TABLE projects (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id),
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  date_created timestamptz NOT NULL DEFAULT now(),
  -- Project-level detection thresholds; NULL means the organization's value.
  object_flag_threshold double precision,
  weighted_confidence_threshold double precision,
  UNIQUE (organization_id, name)
);

CREATE TABLE project_members (
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  role text NOT NULL CHECK (role IN ('admin', 'editor', 'viewer')),
  PRIMARY KEY (project_id, user_id)
);
CREATE INDEX project_members_user_idx ON project_members (user_id);

CREATE TABLE api_clients (
  client_id text COLLATE "C" PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id),
  -- The client acts as this user: its visibility and role are the user's, resolved on each request.
  user_id uuid NOT NULL REFERENCES users (id),
  name text NOT NULL DEFAULT '',
  -- "sha256:<hex>" of the secret. Secrets carry 256 random bits, so a fast hash is enough.
  secret_hash text NOT NULL,
  scopes text[] NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX api_clients_organization_idx ON api_clients (organization_id);
CREATE INDEX api_clients_user_idx ON api_clients (user_id);

-- Asymmetric keys that sign access tokens. The newest active key signs; retired keys stay published
-- in the JWKS until every token they signed has expired.
CREATE TABLE signing_keys (
  kid text COLLATE "C" PRIMARY KEY,
  alg text NOT NULL,
  public_jwk jsonb NOT NULL,
  -- The private JWK as JSON, or an AES-256-GCM envelope of it when a master key is configured.
  private_key text NOT NULL,
  encrypted boolean NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  retired_at timestamptz
);

-- Secrets generated once per deployment and shared by every instance (page-token and presigned-URL
-- HMAC keys), so that several instances behind one load balancer accept each other's tokens.
CREATE TABLE server_secrets (
  name text COLLATE "C" PRIMARY KEY,
  value text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE orders (
  order_id text COLLATE "C" PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id),
  project_id uuid REFERENCES projects (id),
  -- lower(email) of the creator: the owner of a personal order.
  owner_key text COLLATE "C" NOT NULL,
  order_state text NOT NULL CHECK (order_state IN
    ('In Progress', 'Human Certified', 'Action Required', 'Reviewed', 'Failed', 'Unsupported File')),
  creation_time timestamptz NOT NULL,
  -- Object keys from which presigned URLs are computed per response.
  asset_preview_key text,
  layers jsonb NOT NULL DEFAULT '[]',
  -- The Order as the API shows it, minus the per-response fields (project, asset_preview_url,
  -- layers_info), rendered once at write time by the domain's order document renderer. `json` (not
  -- jsonb) keeps the text verbatim, so a listing splices it into the response without re-serializing.
  doc json NOT NULL,
  -- The OrderPreview likewise, minus asset_preview_url and project_name.
  preview_doc json NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- Keyset indexes of the listing: whole organization, one project, personal orders (all / per owner).
CREATE INDEX orders_org_keyset_idx ON orders (organization_id, creation_time DESC, order_id DESC);
CREATE INDEX orders_project_keyset_idx ON orders (project_id, creation_time DESC, order_id DESC)
  WHERE project_id IS NOT NULL;
CREATE INDEX orders_personal_keyset_idx ON orders (organization_id, creation_time DESC, order_id DESC)
  WHERE project_id IS NULL;
CREATE INDEX orders_owner_keyset_idx ON orders (organization_id, owner_key, creation_time DESC, order_id DESC)
  WHERE project_id IS NULL;

-- Per-state order counts per scope, so that order_stats never counts orders on a request.
-- scope_key: 'project:<uuid>' or 'personal:<owner_key>'. Kept exact by the triggers below, inside the
-- transaction of every order write (seed, import, COPY and any later write path).
CREATE TABLE order_counters (
  organization_id uuid NOT NULL,
  scope_key text COLLATE "C" NOT NULL,
  project_id uuid,
  owner_key text COLLATE "C",
  order_state text NOT NULL,
  order_count bigint NOT NULL,
  PRIMARY KEY (organization_id, scope_key, order_state)
);

CREATE FUNCTION order_counters_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    INSERT INTO order_counters AS c (organization_id, scope_key, project_id, owner_key, order_state, order_count)
    SELECT organization_id,
           CASE WHEN project_id IS NULL THEN 'personal:' || owner_key ELSE 'project:' || project_id::text END,
           project_id, CASE WHEN project_id IS NULL THEN owner_key END, order_state, -count(*)
    FROM old_rows GROUP BY 1, 2, 3, 4, 5
    ON CONFLICT (organization_id, scope_key, order_state)
    DO UPDATE SET order_count = c.order_count + EXCLUDED.order_count;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO order_counters AS c (organization_id, scope_key, project_id, owner_key, order_state, order_count)
    SELECT organization_id,
           CASE WHEN project_id IS NULL THEN 'personal:' || owner_key ELSE 'project:' || project_id::text END,
           project_id, CASE WHEN project_id IS NULL THEN owner_key END, order_state, count(*)
    FROM new_rows GROUP BY 1, 2, 3, 4, 5
    ON CONFLICT (organization_id, scope_key, order_state)
    DO UPDATE SET order_count = c.order_count + EXCLUDED.order_count;
  END IF;
  RETURN NULL;
END;
$$;

-- Statement-level triggers with transition tables: one aggregate per statement, so a bulk insert of
-- 10,000 rows costs a handful of counter updates, not 10,000.
CREATE TRIGGER orders_counters_insert AFTER INSERT ON orders
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION order_counters_apply();
CREATE TRIGGER orders_counters_update AFTER UPDATE ON orders
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION order_counters_apply();
CREATE TRIGGER orders_counters_delete AFTER DELETE ON orders
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION order_counters_apply();

-- Web application sessions. Only a hash of the cookie value is stored.
CREATE TABLE web_sessions (
  id_hash text COLLATE "C" PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  csrf_token text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
CREATE INDEX web_sessions_user_idx ON web_sessions (user_id);
