import assert from 'node:assert/strict';
import { it } from 'node:test';
import { openDatabase } from './database.js';
import { describeOnEachDatabase } from '../../test/helpers/database.js';
import { SERVER_SECRET, serverSecret } from './server-secrets.js';

describeOnEachDatabase('server secrets', (getDb, target) => {

  it('creates each secret once (256 bits) and returns it again', async () => {
    const a = await serverSecret(getDb().db, SERVER_SECRET.pageToken);
    assert.equal(a.length, 32);
    assert.deepEqual(await serverSecret(getDb().db, SERVER_SECRET.pageToken), a);
    assert.notDeepEqual(await serverSecret(getDb().db, SERVER_SECRET.presign), a, 'each purpose has its own key');
  });

  // PGlite has one connection, so only a server can have instances racing.
  if (target.name === 'postgres') it('gives every instance the same key when they race to create it', async () => {
    // Separate pools stand for separate instances: each has its own cache and its own connections.
    const url = getDb().description.replace(/^PostgreSQL /, '');
    const instances = await Promise.all(Array.from({ length: 6 }, () => openDatabase({ databaseUrl: url, pgliteDir: null, poolSize: 2 })));
    try {
      const keys = await Promise.all(instances.map((i) => serverSecret(i.db, 'race-test')));
      for (const k of keys) assert.deepEqual(k, keys[0]);
      const rows = await getDb().db.selectFrom('server_secrets').selectAll().where('name', '=', 'race-test').execute();
      assert.equal(rows.length, 1);
      assert.deepEqual(Buffer.from(rows[0]!.value, 'base64url'), keys[0]);
    } finally {
      await Promise.all(instances.map((i) => i.close()));
    }
  });
});
