-- The order history (GET /v1/orders/{order_id}/history): `order_events` becomes the audit trail of every
-- move and every recorded action of an order, not only of its state changes. Same file on PGlite and
-- PostgreSQL. docs/history.md describes the events.

-- The public, stable id of an event (the bigserial `id` stays the internal order of recording).
ALTER TABLE order_events ADD COLUMN event_id uuid NOT NULL DEFAULT gen_random_uuid();
ALTER TABLE order_events ADD CONSTRAINT order_events_event_id_key UNIQUE (event_id);

-- What happened. Moves are `created` (from nothing), `state_changed` and `responded` (the customer's
-- answer to Action Required); the others record an action that leaves the state as it is.
ALTER TABLE order_events ADD COLUMN type text;

-- The free text of the event: the reason of a system move, the customer's message, a reviewer's note.
ALTER TABLE order_events RENAME COLUMN reason TO note;

-- {"field": {"before": ..., "after": ...}} of the order fields the event changed; NULL when none.
ALTER TABLE order_events ADD COLUMN changes jsonb;

-- Who, as the history shows it: a user's e-mail at the time of the event, or `certdesk:<component>` for
-- the system. The API client a user acted through is kept apart (for operators; the history never shows it).
ALTER TABLE order_events RENAME COLUMN actor_label TO actor;
ALTER TABLE order_events ADD COLUMN actor_client_id text;

-- An event that does not move the order has neither from_state nor to_state.
ALTER TABLE order_events ALTER COLUMN to_state DROP NOT NULL;

-- Existing rows. The label was `email` or `email (client CLIENT_ID)` for users, NULL for the system.
UPDATE order_events
SET actor_client_id = substring(actor FROM ' \(client (.*)\)$'),
    actor = regexp_replace(actor, ' \(client .*\)$', '')
WHERE actor_kind = 'user' AND actor IS NOT NULL;
UPDATE order_events e SET actor = u.email
FROM users u
WHERE e.actor_kind = 'user' AND e.actor IS NULL AND u.id::text = e.actor_id;
UPDATE order_events SET actor = actor_id WHERE actor_kind = 'user' AND actor IS NULL;
UPDATE order_events SET actor = 'certdesk:' || actor_id WHERE actor_kind = 'system';

-- The creation (its note was the constant 'created'), the customer's responses (their note was the JSON
-- {"response": MESSAGE, "upload_ids": [...]} that POST /v1/orders/{order_id}/responses wrote), and every
-- other move.
UPDATE order_events SET type = 'created', note = NULL WHERE from_state IS NULL;
UPDATE order_events
SET type = 'responded',
    changes = CASE WHEN jsonb_array_length(COALESCE(note::jsonb -> 'upload_ids', '[]'::jsonb)) > 0
                   THEN jsonb_build_object('upload_ids', jsonb_build_object('before', '[]'::jsonb, 'after', note::jsonb -> 'upload_ids'))
              END,
    note = note::jsonb ->> 'response'
WHERE type IS NULL AND actor_kind = 'user' AND from_state = 'Action Required' AND to_state = 'In Progress'
  AND note LIKE '{"response":%';
UPDATE order_events SET type = 'state_changed' WHERE type IS NULL;

ALTER TABLE order_events ALTER COLUMN type SET NOT NULL;
ALTER TABLE order_events ALTER COLUMN actor SET NOT NULL;
ALTER TABLE order_events ADD CONSTRAINT order_events_type_check CHECK (type IN (
  'created', 'state_changed', 'analysis_completed', 'annotation_changed', 'claimed', 'responded',
  'certificate_issued', 'certificate_revoked'
));
-- A move names the state it reached; an action names neither.
ALTER TABLE order_events ADD CONSTRAINT order_events_move_check CHECK (
  CASE type
    WHEN 'created' THEN from_state IS NULL AND to_state IS NOT NULL
    WHEN 'state_changed' THEN from_state IS NOT NULL AND to_state IS NOT NULL
    WHEN 'responded' THEN from_state IS NOT NULL AND to_state IS NOT NULL
    ELSE from_state IS NULL AND to_state IS NULL
  END
);
ALTER TABLE order_events ADD CONSTRAINT order_events_changes_check CHECK (changes IS NULL OR jsonb_typeof(changes) = 'object');
