-- Certificates of `Human Certified` orders (DECISIONS 9) and the SHA-256 of each order's asset.
-- Same file on PGlite and PostgreSQL.

-- Lowercase hex SHA-256 of the asset's bytes as uploaded, computed once (streaming the object) and kept,
-- so the certify path never re-reads a large file inside its transaction. NULL until computed, and for
-- seeded orders without an asset.
ALTER TABLE orders ADD COLUMN asset_sha256 text CHECK (asset_sha256 ~ '^[0-9a-f]{64}$');

-- One certificate per order (Human Certified is final). The JWS is stored verbatim: it is what was
-- signed and what verifiers check; the other columns are its claims kept for reads without parsing it.
CREATE TABLE certificates (
  certificate_id uuid PRIMARY KEY,
  -- RESTRICT: an order that was certified cannot be deleted from under its certificate.
  order_id text COLLATE "C" NOT NULL UNIQUE REFERENCES orders (order_id),
  organization_id uuid NOT NULL REFERENCES organizations (id),
  -- The key that signed it; a key named here stays in the JWKS forever (src/oauth/keys/signing-keys.ts).
  kid text COLLATE "C" NOT NULL REFERENCES signing_keys (kid),
  jws text NOT NULL,
  asset_name text NOT NULL,
  asset_sha256 text NOT NULL CHECK (asset_sha256 ~ '^[0-9a-f]{64}$'),
  asset_media_type text NOT NULL,
  -- The `verify_url` claim as signed (the public base URL may change later; the JWS does not).
  verify_url text NOT NULL,
  issued_at timestamptz NOT NULL,
  -- Who issued it: the reviewer's e-mail, or the system component (for audit; not part of the JWS).
  issued_by text NOT NULL,
  revoked_at timestamptz,
  revocation_reason text,
  revoked_by text,
  -- Revocation is final and always has a reason.
  CHECK ((revoked_at IS NULL) = (revocation_reason IS NULL)),
  CHECK (revoked_at IS NULL OR (revoked_by IS NOT NULL AND length(revocation_reason) BETWEEN 1 AND 2000))
);
-- The JWKS query asks, for each retired key, whether it signed a certificate.
CREATE INDEX certificates_kid_idx ON certificates (kid);
