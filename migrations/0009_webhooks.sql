-- Webhooks (DECISIONS 10, docs/webhooks.md): endpoints, the outbox of events, and one delivery per
-- endpoint x event. Same file on PGlite and PostgreSQL.
--
-- Events are written by triggers, so they are in the SAME TRANSACTION as the change that caused them
-- whichever code path made it (API JSON or multipart creation, web, CLI, the analysis, reviews,
-- certificate issue/revocation): an `order_events` row recording a creation or a move, and a certificate
-- inserted or revoked. Seeds and imports of historic orders write no `order_events`, so they emit nothing.
-- An event is written only when at least one enabled endpoint of the organization subscribes to its type
-- (an organization without endpoints pays one index probe per change, and the outbox does not grow).

CREATE TABLE webhook_endpoints (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  url text NOT NULL CHECK (length(url) BETWEEN 1 AND 2048),
  events text[] NOT NULL CHECK (cardinality(events) >= 1),
  description text CHECK (length(description) <= 500),
  status text NOT NULL DEFAULT 'enabled' CHECK (status IN ('enabled', 'disabled')),
  -- Why the service disabled it (410, three days of failures); NULL when enabled or disabled by a user.
  disabled_reason text,
  -- The signing secret (`whsec_...`) as an AES-256-GCM envelope under MASTER_KEY (plain text without one,
  -- as signing keys: development and tests only), bound to the endpoint id.
  secret text NOT NULL,
  -- The secret before the last rotation: it keeps signing beside the new one until it expires (24 h).
  previous_secret text,
  previous_secret_expires_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CHECK ((previous_secret IS NULL) = (previous_secret_expires_at IS NULL))
);
CREATE INDEX webhook_endpoints_organization_idx ON webhook_endpoints (organization_id, created_at, id);

-- The outbox: one row per change, its id is the `webhook-id` of every delivery and every retry.
CREATE TABLE webhook_events (
  event_id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  type text NOT NULL CHECK (type IN ('order.created', 'order.state_changed', 'certificate.issued', 'certificate.revoked')),
  -- The body as sent: {"type", "timestamp", "data"}.
  payload jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE webhook_deliveries (
  id uuid PRIMARY KEY,
  -- An endpoint deleted while deliveries are pending takes them with it (their jobs then find nothing).
  endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  event_id uuid NOT NULL REFERENCES webhook_events (event_id) ON DELETE CASCADE,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_attempt_at timestamptz,
  next_attempt_at timestamptz,
  response_status integer,
  latency_ms integer,
  -- The start of the receiver's answer (or the network error), for administrators: bounded here too.
  response_excerpt text CHECK (length(response_excerpt) <= 1024),
  UNIQUE (endpoint_id, event_id)
);
CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, created_at DESC, id DESC);

-- Writes an event and its deliveries (enabled endpoints of the organization subscribed to the type), and
-- one `deliver_webhook` job per delivery (the columns of jobInsertSql, src/domain/background).
CREATE FUNCTION webhook_emit(p_organization uuid, p_type text, p_at timestamptz, p_data jsonb) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_event uuid;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM webhook_endpoints WHERE organization_id = p_organization AND status = 'enabled' AND p_type = ANY (events)) THEN
    RETURN;
  END IF;
  v_event := gen_random_uuid();
  INSERT INTO webhook_events (event_id, organization_id, type, payload, created_at)
  VALUES (v_event, p_organization, p_type,
          jsonb_build_object('type', p_type, 'timestamp', to_char(p_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'data', p_data),
          now());
  WITH d AS (
    INSERT INTO webhook_deliveries (id, endpoint_id, event_id, next_attempt_at)
    SELECT gen_random_uuid(), id, v_event, now() FROM webhook_endpoints
    WHERE organization_id = p_organization AND status = 'enabled' AND p_type = ANY (events)
    RETURNING id)
  INSERT INTO jobs (kind, payload, run_at, max_attempts, created_at)
  SELECT 'deliver_webhook', jsonb_build_object('delivery_id', d.id), now(), 5, now() FROM d;
END $$;

-- order.created (type `created`) and order.state_changed (every other recorded move).
CREATE FUNCTION webhook_order_event() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_type text;
  v_project uuid;
BEGIN
  IF NEW.type = 'created' THEN
    v_type := 'order.created';
  ELSIF NEW.from_state IS NOT NULL AND NEW.to_state IS NOT NULL AND NEW.from_state <> NEW.to_state THEN
    v_type := 'order.state_changed';
  ELSE
    RETURN NULL;
  END IF;
  SELECT project_id INTO v_project FROM orders WHERE order_id = NEW.order_id;
  PERFORM webhook_emit(NEW.organization_id, v_type, NEW.occurred_at, jsonb_build_object(
    'order_id', NEW.order_id, 'organization_id', NEW.organization_id, 'project_id', v_project,
    'order_state', NEW.to_state, 'previous_state', CASE WHEN v_type = 'order.created' THEN NULL ELSE NEW.from_state END));
  RETURN NULL;
END $$;
CREATE TRIGGER order_events_webhooks AFTER INSERT ON order_events FOR EACH ROW EXECUTE FUNCTION webhook_order_event();

-- certificate.issued (insert) and certificate.revoked (revoked_at set, once: revocation is final).
CREATE FUNCTION webhook_certificate_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM webhook_emit(NEW.organization_id, 'certificate.issued', NEW.issued_at, jsonb_build_object(
      'certificate_id', NEW.certificate_id, 'order_id', NEW.order_id, 'organization_id', NEW.organization_id, 'status', 'valid'));
  ELSIF OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL THEN
    PERFORM webhook_emit(NEW.organization_id, 'certificate.revoked', NEW.revoked_at, jsonb_build_object(
      'certificate_id', NEW.certificate_id, 'order_id', NEW.order_id, 'organization_id', NEW.organization_id, 'status', 'revoked'));
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER certificates_webhooks AFTER INSERT OR UPDATE OF revoked_at ON certificates FOR EACH ROW EXECUTE FUNCTION webhook_certificate_event();
