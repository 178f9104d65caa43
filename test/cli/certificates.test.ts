/**
 * `certdesk certificates show|revoke` end to end: the real CLI (through tsx) against a database holding a
 * real certificate; PostgreSQL when TEST_DATABASE_URL is set, else embedded PGlite in a data directory.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { insertSyntheticCertificates } from '../../src/domain/certificates/synthetic-certificates.js';
import { loadSeed } from '../../src/domain/seed/seed.js';
import { systemClock } from '../../src/domain/time/clock.js';
import { ensureSigningKey, loadKeyRing } from '../../src/oauth/keys/signing-keys.js';
import { migrate } from '../../src/storage/migrate.js';
import { LocalDirectoryStorage } from '../../src/storage/object-storage/index.js';
import { CliScratch, CLI_DATABASES } from './cli-harness.js';

const ORG = 'ce470000-0000-4000-8000-000000000001';

for (const database of CLI_DATABASES) describe(`certdesk certificates (end to end, ${database})`, () => {
  let scratch: CliScratch;
  let certificateId: string;
  const certdesk = (args: string[]) => scratch.run(args);

  before(async () => {
    scratch = await CliScratch.open('cli-certs', database);
    await scratch.withDatabase(async (handle) => {
      await migrate(handle);
      await loadSeed(handle.db, new LocalDirectoryStorage(path.join(scratch.dir, 'objects')), {
        organizations: [{ id: ORG, name: 'Certified Co', users: [{ email: 'owner@certified.test', username: 'Owner', is_admin: true }] }],
      });
      await ensureSigningKey(handle.db, null);
      const ring = await loadKeyRing(handle.db, { masterKey: null, accessTokenTtlSeconds: 3600 });
      [certificateId] = (await insertSyntheticCertificates(
        handle.db,
        { clock: systemClock, signingKey: () => ring.signing, issuerUrl: 'http://localhost:8080', publicBaseUrl: 'http://localhost:8080' },
        { organizationId: ORG, organizationName: 'Certified Co', ownerEmail: 'owner@certified.test', count: 1 },
      )) as [string];
    });
  });
  after(async () => {
    await scratch?.close();
  });

  it('shows a certificate (text and --json)', async () => {
    const json = await certdesk(['certificates', 'show', certificateId, '--json']);
    assert.equal(json.code, 0, json.stderr);
    const shown = JSON.parse(json.stdout) as Record<string, unknown>;
    assert.equal(shown.certificate_id, certificateId);
    assert.equal(shown.status, 'valid');
    assert.equal(shown.organization_id, ORG);
    assert.equal(shown.verify_url, `http://localhost:8080/verify/${certificateId}`);
    const text = await certdesk(['certificates', 'show', certificateId]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, new RegExp(`^certificate ${certificateId}  VALID\\n`));
  });

  it('revokes once with a reason; a second revocation, an unknown id, a missing reason fail in one line', async () => {
    const revoked = await certdesk(['certificates', 'revoke', certificateId, '--reason', 'Generated, per the customer', '--json']);
    assert.equal(revoked.code, 0, revoked.stderr);
    const body = JSON.parse(revoked.stdout) as Record<string, unknown>;
    assert.equal(body.status, 'revoked');
    assert.equal(body.revocation_reason, 'Generated, per the customer');
    assert.equal(body.revoked_by, 'system:operator');
    const again = await certdesk(['certificates', 'revoke', certificateId, '--reason', 'again']);
    assert.equal(again.code, 1);
    assert.deepEqual(again.stderr, 'certdesk: The certificate is already revoked; revocation is final\n');
    const unknown = await certdesk(['certificates', 'show', '00000000-0000-4000-8000-000000000000']);
    assert.equal(unknown.code, 1);
    assert.equal(unknown.stderr, 'certdesk: no certificate 00000000-0000-4000-8000-000000000000\n');
    const malformed = await certdesk(['certificates', 'revoke', 'nope', '--reason', 'x']);
    assert.equal(malformed.code, 1);
    assert.equal(malformed.stderr, 'certdesk: Certificate not found\n');
    const noReason = await certdesk(['certificates', 'revoke', certificateId]);
    assert.equal(noReason.code, 1);
    assert.match(noReason.stderr, /--reason/);
    const shown = JSON.parse((await certdesk(['certificates', 'show', certificateId, '--json'])).stdout) as Record<string, unknown>;
    assert.equal(shown.status, 'revoked');
  });
});
