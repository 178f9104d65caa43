-- Human review (docs/review.md): the deployment-wide reviewer capability and the claims reviewers hold
-- on orders while they review them. Same file on PGlite and PostgreSQL.

-- Users given the reviewer capability by an operator (`certdesk reviewer grant EMAIL`). Deployment-wide:
-- a reviewer reviews orders of every organization except their own.
CREATE TABLE reviewers (
  user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  granted_at timestamptz NOT NULL
);

-- At most one claim per order. A claim is live until expires_at (renewed by the open review page); an
-- expired row stays until someone else claims the order (it is then replaced) or a decision removes it,
-- so the reviewer whose tab slept can still decide when nobody else took the order meanwhile.
-- claim_id changes on every new claim: a decision names the claim it was made under, so a decision from
-- a stale page (double submit, a claim taken over) finds another id and is refused.
CREATE TABLE review_claims (
  order_id text COLLATE "C" PRIMARY KEY REFERENCES orders (order_id) ON DELETE CASCADE,
  claim_id uuid NOT NULL,
  reviewer_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  claimed_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX review_claims_reviewer_idx ON review_claims (reviewer_id);

-- The review queue reads the orders In Progress of every organization: a partial index keeps that read
-- proportional to the queue, not to all orders ever made.
CREATE INDEX orders_in_progress_idx ON orders (creation_time, order_id) WHERE order_state = 'In Progress';
