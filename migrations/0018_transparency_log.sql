-- The public transparency log of certificates (DECISIONS 14, docs/transparency-log.md).
-- Same file on PGlite and PostgreSQL.

-- One row per logged event: written in the transaction that issues or revokes the certificate (never lost,
-- never twice: one issuance and at most one revocation per certificate), sequenced later. `id` only orders
-- the waiting entries; `log_index` (0-based, as in the tiles) is assigned by the sequencer, contiguously,
-- in the order of `id`. `certificate_id` is private (the public entry text names no certificate); no
-- foreign key: the log is append-only whatever happens to the certificate row.
CREATE TABLE transparency_log_entries (
  id bigserial PRIMARY KEY,
  certificate_id uuid NOT NULL,
  kind text NOT NULL CHECK (kind IN ('issued', 'revoked')),
  -- The exact entry: RFC 8785 canonical JSON, UTF-8.
  entry text NOT NULL,
  log_index bigint UNIQUE,
  -- The size of the first signed checkpoint that includes the entry, and the entry's RFC 6962 audit path
  -- in that tree (32-byte hashes concatenated, leaf to root).
  checkpoint_size bigint,
  inclusion_proof bytea,
  UNIQUE (certificate_id, kind),
  CHECK ((log_index IS NULL) = (checkpoint_size IS NULL) AND (log_index IS NULL) = (inclusion_proof IS NULL)),
  CHECK (log_index IS NULL OR log_index < checkpoint_size)
);
-- The sequencer takes the waiting entries oldest first.
CREATE INDEX transparency_log_entries_waiting_idx ON transparency_log_entries (id) WHERE log_index IS NULL;

-- Hashes at levels 1 and above (level l: the root of a full tile of level l-1, a perfect subtree of 256^l
-- leaves), kept so the rightmost tiles can be rebuilt without reading every entry. Level 0 hashes are the
-- entries' leaf hashes, recomputed from `entry`.
CREATE TABLE transparency_log_hashes (
  level smallint NOT NULL CHECK (level BETWEEN 1 AND 63),
  idx bigint NOT NULL CHECK (idx >= 0),
  hash bytea NOT NULL CHECK (length(hash) = 32),
  PRIMARY KEY (level, idx)
);

-- Every checkpoint the log signed (a partial tile is kept in object storage for each of these sizes).
CREATE TABLE transparency_log_checkpoints (
  tree_size bigint PRIMARY KEY CHECK (tree_size >= 0),
  root_hash bytea NOT NULL CHECK (length(root_hash) = 32),
  note text NOT NULL,
  signed_at timestamptz NOT NULL DEFAULT now()
);

-- The log's one state row: how far it is sequenced (`tree_size`, a signed checkpoint of that size exists),
-- how far object storage has it (`published_size`: tiles, bundles and the checkpoint written; NULL before
-- the first), and which process is its sequencer (a lease, renewed by each round; `sequencer_session` is
-- that process's listening session on PostgreSQL, so a killed sequencer is replaced at once).
CREATE TABLE transparency_log_state (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  tree_size bigint NOT NULL DEFAULT 0,
  published_size bigint,
  sequencer text,
  sequencer_session text,
  lease_until timestamptz
);
INSERT INTO transparency_log_state (id) VALUES (true);

-- The log's Ed25519 signing key (one for the log's life): its name is the origin, `<public base URL
-- without scheme>/log` when it was made. The private key (PKCS #8, base64) is encrypted with MASTER_KEY
-- like the other signing keys (src/oauth/keys/key-encryption.ts) when one is set.
CREATE TABLE transparency_log_keys (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  name text NOT NULL,
  public_key bytea NOT NULL CHECK (length(public_key) = 32),
  private_key text NOT NULL,
  encrypted boolean NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Certificates issued before the log existed are appended first, in the order of their events, each with
-- its own time: issuances in issue order, revocations at their revocation time (an issuance before its
-- revocation). The entry text is the canonical JSON the service writes (src/domain/transparency-log/
-- entries.ts; its three values are ASCII without characters JSON escapes, so RFC 8785 is this
-- concatenation: test/http/transparency-log-backfill.test.ts holds the two equal).
INSERT INTO transparency_log_entries (id, certificate_id, kind, entry)
SELECT row_number() OVER (ORDER BY at, kind_order, certificate_id), certificate_id, kind,
       '{"at":"' || to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '","certificate_sha256":"'
         || encode(sha256(convert_to(jws, 'UTF8')), 'hex') || '","type":"certificate.' || kind || '"}'
FROM (
  SELECT certificate_id, 'issued' AS kind, 0 AS kind_order, issued_at AS at, jws FROM certificates
  UNION ALL
  SELECT certificate_id, 'revoked', 1, revoked_at, jws FROM certificates WHERE revoked_at IS NOT NULL
) AS events;
SELECT setval(pg_get_serial_sequence('transparency_log_entries', 'id'), GREATEST((SELECT max(id) FROM transparency_log_entries), 1),
              (SELECT count(*) > 0 FROM transparency_log_entries));
