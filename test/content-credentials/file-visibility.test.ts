/**
 * The credentialed-file route reads the certificate and the orders' visibility rule in one query
 * (certificate.repository.ts findVisibleCertificateFile). Property: in generated worlds (several
 * organizations; administrators, project admins, editors, viewers and members of nothing; personal and
 * project orders, each given a certificate), every user gets a file row for exactly the orders the
 * orders' own rule lets them see (find-visible-order.ts isOrderVisible), and for nothing of another
 * organization. PGlite, and PostgreSQL when TEST_DATABASE_URL is set.
 */
import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import fc from 'fast-check';
import { sql } from 'kysely';
import { findVisibleCertificateFile, insertCertificateBatch } from '../../src/domain/certificates/certificate.repository.js';
import { isOrderVisible } from '../../src/domain/orders/find-visible-order.js';
import { principalFor, principalUserOfRow, type PrincipalUserRow } from '../../src/domain/principal.js';
import { loadSeed } from '../../src/domain/seed/seed.js';
import { ensureSigningKey } from '../../src/oauth/keys/signing-keys.js';
import { describeOnEachDatabase } from '../helpers/database.js';
import { removeTemporaryObjectStorages, temporaryObjectStorage } from '../helpers/fixtures.js';
import { tenantWorld } from '../abuse/tenant-world.js';

const WORLDS = Number(process.env.FILE_VISIBILITY_WORLDS ?? 3);

after(() => removeTemporaryObjectStorages());

describeOnEachDatabase('the credentialed file follows the orders\' visibility', (getDb) => {
  it(`for every user and every order of ${WORLDS} generated worlds`, async () => {
    const seed = Number(process.env.FILE_VISIBILITY_SEED ?? Date.now() % 2 ** 31);
    const worlds = fc.sample(tenantWorld(2, 3), { seed, numRuns: WORLDS });
    let checked = 0;
    let seen = 0;
    for (const [w, world] of worlds.entries()) {
      const db = getDb().db;
      // Each world in an empty database (the seed's ids are generated, and may repeat between worlds).
      await sql`TRUNCATE organizations, certificates CASCADE`.execute(db);
      await loadSeed(db, temporaryObjectStorage().storage, world.seed);
      await ensureSigningKey(db, null);
      const kid = (await db.selectFrom('signing_keys').select('kid').executeTakeFirstOrThrow()).kid;
      const orders = await db.selectFrom('orders').select(['order_id', 'organization_id']).execute();
      await insertCertificateBatch(
        db,
        orders.map((o, i) => ({
          certificate_id: `00000000-0000-4000-8000-${String(w * 100_000 + i).padStart(12, '0')}`,
          order_id: o.order_id,
          organization_id: o.organization_id,
          kid,
          jws: 'header.payload.signature',
          asset_name: `${o.order_id}.png`,
          asset_sha256: '0'.repeat(64),
          asset_media_type: 'image/png',
          verify_url: `https://certdesk.test/verify/${o.order_id}`,
          issued_at: new Date(0),
          issued_by: 'reviewer@certifier.test',
        })),
      );
      const users = (await db
        .selectFrom('users as u')
        .select(['u.id as user_id', 'u.organization_id', 'u.email', 'u.email_key', 'u.username', 'u.is_admin'])
        .execute()) as PrincipalUserRow[];
      for (const user of users) {
        const principal = principalFor(principalUserOfRow(user), null, []);
        for (const order of orders) {
          const expected = await isOrderVisible(db, principal, order.order_id);
          const row = await findVisibleCertificateFile(db, principal, order.order_id);
          assert.equal(row !== undefined, expected, `seed ${seed}: user ${user.email} (admin ${user.is_admin}) and order ${order.order_id}`);
          if (row) assert.equal(row.asset_name, `${order.order_id}.png`);
          checked++;
          if (expected) seen++;
        }
      }
    }
    assert.ok(seen > 0 && seen < checked, `both answers occur (${seen} visible of ${checked})`);
  });
});
