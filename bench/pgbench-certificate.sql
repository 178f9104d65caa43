-- The bare primary-key lookup behind GET /v1/certificates/{id} and /verify/{id}/badge.svg: the same
-- columns and predicate as findCertificate in src/domain/certificates/certificate.repository.ts, for a
-- random one of the seeded certificates (bench/certificates-seed.ts: the n-th id ends in n in hex).
-- Run by bench/certificates.ts: pgbench -M prepared -D count=<certificates> -f bench/pgbench-certificate.sql
\set n random(0, :count - 1)
SELECT certificate_id::text AS certificate_id, order_id, organization_id::text AS organization_id, kid, jws, asset_name,
       asset_sha256, asset_media_type, verify_url, issued_at, issued_by, revoked_at, revocation_reason, revoked_by
FROM certificates
WHERE certificate_id = ('ce000000-0000-4000-8000-' || lpad(to_hex(:n::bigint), 12, '0'))::uuid;
