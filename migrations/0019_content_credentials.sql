-- Content Credentials (DECISIONS 13, docs/content-credentials.md): each certificate's credentialed copy of
-- its asset (a C2PA manifest embedded in a copy of the bytes as uploaded), and the X.509 chains that sign
-- those manifests. Same file on PGlite and PostgreSQL.

-- One row per signing chain the service has used or may use. `generated`: a root named for the deployment
-- and a leaf with the C2PA signing profile, made on first start, both private keys encrypted with
-- MASTER_KEY like the token keys (`v1.` envelopes; plain PKCS#8 PEM without MASTER_KEY, development only).
-- `operator`: the chain of C2PA_CERTIFICATE_CHAIN (its private key stays in the operator's file, never
-- here). `anchor_pem` is what /.well-known/c2pa-trust-anchors.pem publishes for the chain: the generated
-- root, or the last certificate of the operator's chain. A chain no longer configured is retired, never
-- deleted: files it signed keep validating against its anchor.
CREATE TABLE c2pa_signers (
  -- Lowercase hex SHA-256 of the leaf certificate's DER.
  signer_id text COLLATE "C" PRIMARY KEY CHECK (signer_id ~ '^[0-9a-f]{64}$'),
  source text NOT NULL CHECK (source IN ('generated', 'operator')),
  chain_pem text NOT NULL,
  anchor_pem text NOT NULL,
  leaf_private_key text,
  root_private_key text,
  encrypted boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  retired_at timestamptz,
  CHECK ((source = 'generated') = (leaf_private_key IS NOT NULL))
);
-- At most one chain signs at a time.
CREATE UNIQUE INDEX c2pa_signers_current_idx ON c2pa_signers ((true)) WHERE retired_at IS NULL;

-- `pending` until the job has made the file (or found that it cannot be made: `unsupported`, with the
-- reason in content_credentials_note), then `ready` with the object key of the copy and the chain that
-- signed it. The key is written only after the object is complete: the file route never sees a part.
ALTER TABLE certificates
  ADD COLUMN content_credentials text NOT NULL DEFAULT 'pending' CHECK (content_credentials IN ('pending', 'ready', 'unsupported')),
  ADD COLUMN content_credentials_key text,
  ADD COLUMN content_credentials_note text,
  ADD COLUMN content_credentials_signer text COLLATE "C" REFERENCES c2pa_signers (signer_id),
  ADD CHECK ((content_credentials = 'ready') = (content_credentials_key IS NOT NULL));

-- Certificates issued before this migration get their file too: one job each, as issuing queues now.
INSERT INTO jobs (kind, payload, run_at, max_attempts, singleton_key, created_at)
SELECT 'make_content_credentials', jsonb_build_object('certificate_id', certificate_id::text), now(), 25,
       'content-credentials:' || certificate_id::text, now()
FROM certificates
ON CONFLICT DO NOTHING;

-- The trust anchors route asks, for each retired chain, whether it signed a file.
CREATE INDEX certificates_content_credentials_signer_idx ON certificates (content_credentials_signer) WHERE content_credentials_signer IS NOT NULL;
