-- The webhook outbox's backlog for /metrics (`certdesk_webhook_deliveries_pending`): pending deliveries
-- through a partial index, so a scrape counts the backlog and not every delivery ever made. Same file on
-- PGlite and PostgreSQL.
CREATE INDEX webhook_deliveries_pending_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
