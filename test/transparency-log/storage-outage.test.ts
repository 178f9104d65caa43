/**
 * Object storage failing while the log sequences (DECISIONS 14: it delays the log, never corrupts it), with
 * the real application and the real local object storage on PGlite and PostgreSQL: the log's directory
 * in storage is replaced by a file, so every write under `log/` fails as a broken disk or bucket would.
 * Meanwhile entries are still numbered and signed in the database, but no certificate shows log data it
 * could not prove with published tiles; once storage is back, everything signed meanwhile is written
 * (every partial tile of every signed size included) and the audit of the whole log passes.
 */
import assert from 'node:assert/strict';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, it } from 'node:test';
import { sql } from 'kysely';
import { insertSyntheticCertificates } from '../../src/domain/certificates/synthetic-certificates.js';
import { readVerifierKey } from '../../src/domain/transparency-log/index.js';
import { eventually } from '../helpers/certificates.js';
import { describeOnEachDatabase } from '../helpers/database.js';
import { ACME, USERS } from '../helpers/fixtures.js';
import { startApi, type Api } from '../http/api-harness.js';
import { auditLog } from './log-audit.js';

describeOnEachDatabase('transparency log while object storage fails', (getDb) => {
  let api: Api & { dir: string };

  before(async () => {
    api = await startApi(getDb());
  });
  after(async () => {
    await api?.close();
  });

  const add = (count: number, prefix: string) =>
    insertSyntheticCertificates(getDb().db, api.app.services.certificates, { organizationId: ACME.id, organizationName: ACME.name, ownerEmail: USERS.admin.email, count, orderIdPrefix: prefix, batchSize: 100 });
  const state = async () => (await sql<{ tree_size: number; published_size: number | null }>`SELECT tree_size, published_size FROM transparency_log_state`.execute(getDb().db)).rows[0]!;
  const publicLog = async (id: string) => (api.app.inject({ url: `/v1/certificates/${id}` }).then((r) => (r.json() as { transparency_log: unknown }).transparency_log));

  it('delays the log and never corrupts it', async () => {
    const [first] = await add(300, 'ord_outage_a_');
    await eventually(state, (s) => s.published_size === 300, 'the first 300 published');
    assert.notEqual(await publicLog(first!), null);
    const before = (await api.app.inject({ url: '/log/checkpoint' })).body;

    // Storage fails: the log's directory becomes a file, so no write under log/ can succeed.
    const logDir = path.join(api.dir, 'log');
    renameSync(logDir, `${logDir}.away`);
    writeFileSync(logDir, 'not a directory');
    try {
      const ids = await add(400, 'ord_outage_b_');
      // Sequencing goes on in the database (several batches, each signed) while nothing can be published.
      await eventually(state, (s) => s.tree_size === 700, 'the 400 new entries sequenced in the database');
      const during = await state();
      assert.equal(during.published_size, 300, 'nothing is published while storage fails');
      assert.equal(await publicLog(ids[0]!), null, 'a certificate shows no log data its tiles do not back yet');
      assert.equal(await publicLog(ids[399]!), null);
      assert.notEqual(await publicLog(first!), null, 'what was published stays');
    } finally {
      rmSync(logDir, { force: true });
      renameSync(`${logDir}.away`, logDir);
    }
    // Storage is back: the next rounds write everything signed meanwhile, then the newest checkpoint.
    await eventually(state, (s) => s.published_size === 700, 'published once storage is back', 60_000);
    const after = (await api.app.inject({ url: '/log/checkpoint' })).body;
    assert.notEqual(after, before);
    assert.equal(after.split('\n')[1], '700');
    const key = (await readVerifierKey(getDb().db))!;
    const report = await auditLog(getDb().db, api.app.services.storage, key);
    assert.equal(report.entries, 700);
    assert.ok(report.checkpoints >= 2);
  });
});
