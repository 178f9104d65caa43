-- "Send test event" from the organization page (docs/webhooks.md, "On the organization page"): an event of
-- type `webhook.test`, written for one endpoint only, goes through the same outbox, delivery job, signature
-- and delivery log as every other event. No endpoint subscribes to it (the API still refuses the name in
-- `events`), so no trigger ever writes one.
ALTER TABLE webhook_events DROP CONSTRAINT webhook_events_type_check;
ALTER TABLE webhook_events ADD CONSTRAINT webhook_events_type_check
  CHECK (type IN ('order.created', 'order.state_changed', 'certificate.issued', 'certificate.revoked', 'webhook.test'));
