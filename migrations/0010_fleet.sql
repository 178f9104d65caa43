-- Several `serve` instances on one database (DECISIONS 11, docs/operations.md "Running several
-- instances"). Same file on PGlite and PostgreSQL.

-- The web application's one-time secrets (post/redirect/get of a new credential or webhook secret,
-- src/web/one-time-secrets.ts): the POST may land on one instance and the redirect on another, so the
-- value lives here, not in a process. The row is found by the SHA-256 of the ticket (hex; the ticket itself is
-- only in the redirect URL), its value is AES-256-GCM encrypted (base64) under a key derived from the ticket (a
-- copy of the database alone cannot read it), it is bound to the session that made it, and it is deleted
-- when shown or, unshown, by the next write once expired.
CREATE TABLE one_time_secrets (
  ticket_hash text COLLATE "C" PRIMARY KEY,
  purpose text NOT NULL,
  owner text NOT NULL,
  sealed text NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX one_time_secrets_expiry_idx ON one_time_secrets (expires_at);

-- Wakes the job workers of every instance listening on PostgreSQL when jobs are queued (by the
-- application's INSERT or by the webhook triggers of 0009). Once per statement; PostgreSQL delivers a
-- notification when the transaction commits and folds duplicates of one transaction into one, so a
-- worker is never woken for a job it cannot see yet.
CREATE FUNCTION jobs_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('certdesk_jobs', '');
  RETURN NULL;
END $$;
CREATE TRIGGER jobs_queued_notify AFTER INSERT ON jobs FOR EACH STATEMENT EXECUTE FUNCTION jobs_notify();

-- Tells every instance's client cache (src/oauth/client-access-cache.ts) that a client changed in a way
-- that matters to authentication: revoked, its scopes, its user or its secret. The payload is the
-- client id; the cache forgets that entry, so a revocation on one instance is refused by the others as
-- soon as the notification arrives rather than when the cached entry expires.
CREATE FUNCTION api_clients_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('certdesk_client_access', COALESCE(OLD.client_id, NEW.client_id));
  RETURN NULL;
END $$;
CREATE TRIGGER api_clients_changed_notify AFTER UPDATE OF revoked_at, scopes, user_id, secret_hash, organization_id OR DELETE
  ON api_clients FOR EACH ROW EXECUTE FUNCTION api_clients_notify();
