-- Per-user limits on outstanding uploads (docs/intake.md): announcing an upload counts the caller's
-- uploads that no order used yet and that have not expired. This index answers that per user.
CREATE INDEX uploads_unused_user_idx ON uploads (user_id, expires_at) WHERE used_at IS NULL;
