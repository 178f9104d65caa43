-- The review queue's "Recently certified" list (docs/review.md): a reviewer's own newest certificates,
-- read on every queue page, by one index range scan however many certificates there are.
-- Same file on PGlite and PostgreSQL.
CREATE INDEX certificates_issued_by_idx ON certificates (issued_by, issued_at DESC);
