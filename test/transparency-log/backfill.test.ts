/**
 * Migration 0018 on a database that already has certificates (DECISIONS 14: "certificates issued before the
 * log existed are appended first, in issue order, with their issue time"): every issuance and revocation
 * gets an entry, ordered by the time of its event, whose text is exactly the RFC 8785 canonical JSON the
 * `canonicalize` library gives; the first sequencer round numbers them 0.. before any later certificate.
 * PGlite, and PostgreSQL when TEST_DATABASE_URL is set.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import canonicalize from 'canonicalize';
import { sql } from 'kysely';
import { insertCertificateBatch } from '../../src/domain/certificates/certificate.repository.js';
import { insertOrderBatch } from '../../src/domain/order-import/order-import.repository.js';
import { toOrderRow } from '../../src/domain/orders/order-document.js';
import { logCertificateIssued, openTransparencyLog } from '../../src/domain/transparency-log/index.js';
import { ensureSigningKey } from '../../src/oauth/keys/signing-keys.js';
import type { DatabaseHandle } from '../../src/storage/database.js';
import { loadMigrations, migrate } from '../../src/storage/migrate.js';
import { unmigratedDatabaseTargets } from '../helpers/database.js';
import { ACME, loadStandardFixture, temporaryObjectStorage, USERS } from '../helpers/fixtures.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const entryOf = (type: string, at: Date, jws: string) => canonicalize({ type, at: at.toISOString(), certificate_sha256: sha256(jws) })!;

for (const target of unmigratedDatabaseTargets('tlogfill')) {
  describe(`migration 0018 (transparency log) back-fills earlier certificates on ${target.name}`, () => {
    let handle: DatabaseHandle;
    const objects = temporaryObjectStorage();
    // Issued in this order of time (not of id), one revoked later than the next one's issuance.
    const certificates = [
      { id: 'c0000000-0000-4000-8000-000000000003', issued: new Date('2026-01-01T10:00:00.001Z'), revoked: new Date('2026-01-03T00:00:00.500Z') },
      { id: 'c0000000-0000-4000-8000-000000000001', issued: new Date('2026-01-02T10:00:00.120Z'), revoked: null },
      { id: 'c0000000-0000-4000-8000-000000000002', issued: new Date('2026-01-04T23:59:59.999Z'), revoked: null },
    ];

    before(async () => {
      handle = await target.open();
      const all = await loadMigrations();
      await migrate(handle, all.filter((m) => m.version < '0018'));
      await loadStandardFixture(handle, objects.storage);
      await ensureSigningKey(handle.db, null);
      const kid = (await handle.db.selectFrom('signing_keys').select('kid').executeTakeFirstOrThrow()).kid;
      await insertOrderBatch(
        handle.db,
        certificates.map((c, i) =>
          toOrderRow(ACME.id, {
            order_id: `ord_backfill_${i}`,
            username: 'ada',
            email: USERS.admin.email,
            order_state: 'Human Certified',
            order_title: `Backfill ${i}`,
            asset_id: `a${i}`,
            asset_name: `art-${i}.png`,
            asset_last_modified_timestamp: '1767225600',
            ordered_by: null,
            creation_time: '2026-01-01T00:00:00Z',
            reviewed_by: 'reviewer@certifier.test',
            review_timestamp: '2026-01-01T00:00:00Z',
            project_id: null,
          }),
        ),
      );
      await insertCertificateBatch(
        handle.db,
        certificates.map((c, i) => ({
          certificate_id: c.id,
          order_id: `ord_backfill_${i}`,
          organization_id: ACME.id,
          kid,
          jws: `header.payload-${i}.signature`,
          asset_name: `art-${i}.png`,
          asset_sha256: sha256(`asset ${i}`),
          asset_media_type: 'image/png',
          verify_url: `https://api.certdesk.test/verify/${c.id}`,
          issued_at: c.issued,
          issued_by: 'reviewer@certifier.test',
        })),
      );
      for (const c of certificates.filter((x) => x.revoked)) {
        await sql`UPDATE certificates SET revoked_at = ${c.revoked}, revocation_reason = 'withdrawn', revoked_by = 'system:operator' WHERE certificate_id = ${c.id}::uuid`.execute(handle.db);
      }
      await migrate(handle, all);
    });
    after(async () => {
      await handle?.close();
      objects.remove();
    });

    it('writes one entry per event, in the order of time, each exactly the canonical JSON of the service', async () => {
      const rows = await sql<{ id: number; certificate_id: string; kind: string; entry: string }>`
        SELECT id, certificate_id::text AS certificate_id, kind, entry FROM transparency_log_entries ORDER BY id`.execute(handle.db);
      const expected = [
        [certificates[0]!.id, 'issued', entryOf('certificate.issued', certificates[0]!.issued, 'header.payload-0.signature')],
        [certificates[1]!.id, 'issued', entryOf('certificate.issued', certificates[1]!.issued, 'header.payload-1.signature')],
        [certificates[0]!.id, 'revoked', entryOf('certificate.revoked', certificates[0]!.revoked!, 'header.payload-0.signature')],
        [certificates[2]!.id, 'issued', entryOf('certificate.issued', certificates[2]!.issued, 'header.payload-2.signature')],
      ];
      assert.deepEqual(rows.rows.map((r) => [r.certificate_id, r.kind, r.entry]), expected);
      assert.deepEqual(rows.rows.map((r) => r.id), [1, 2, 3, 4]);
    });

    it('the first sequencer round numbers them first, before a certificate issued after the migration', async () => {
      // A certificate issued after the migration, before any sequencer ran.
      await logCertificateIssued(handle.db, { certificate_id: 'c0000000-0000-4000-8000-000000000009', jws: 'later.jws.x', issued_at: new Date('2026-02-01T00:00:00.000Z') });
      const log = openTransparencyLog({ db: handle.db, storage: objects.storage, masterKey: null, publicBaseUrl: 'https://api.certdesk.test', sequencerId: 'backfill-test', exclusive: true });
      for (let round = 0; round < 5; round++) await log.sequencer.runRound();
      const rows = await sql<{ log_index: number; entry: string }>`SELECT log_index, entry FROM transparency_log_entries ORDER BY log_index`.execute(handle.db);
      assert.deepEqual(rows.rows.map((r) => r.log_index), [0, 1, 2, 3, 4]);
      assert.equal(rows.rows[4]!.entry, entryOf('certificate.issued', new Date('2026-02-01T00:00:00.000Z'), 'later.jws.x'));
      assert.equal((await objects.storage.get('log/checkpoint')) !== null, true);
    });
  });
}
