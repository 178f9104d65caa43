import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeProtectedHeader } from 'jose';
import pino from 'pino';
import { SCOPES } from '../../contract/schemas.js';
import { describeOnEachDatabase } from '../../../test/helpers/database.js';
import { buildOAuthTestApp, obtainToken, seedClient, testConfig } from '../../../test/oauth/oauth-harness.js';
import { decryptPrivateKey, encryptPrivateKey, KeyDecryptionError } from './key-encryption.js';
import { KeyStore } from './key-store.js';
import { listSigningKeys } from './signing-key.repository.js';
import { ensureSigningKey, loadKeyRing, RETIREMENT_SKEW_SECONDS, rotateSigningKey } from './signing-keys.js';

const MASTER = 'm'.repeat(40);

function capturingLogger(): { log: pino.Logger; lines: () => Array<Record<string, unknown>> } {
  const out: string[] = [];
  const log = pino({ level: 'info' }, { write: (s: string) => void out.push(s) });
  return { log, lines: () => out.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe('private key encryption at rest', () => {
  it('round-trips, and refuses a wrong master key, another kid or a tampered envelope', () => {
    const envelope = encryptPrivateKey('{"d":"secret"}', MASTER, 'kid-1');
    assert.doesNotMatch(envelope, /secret/);
    assert.equal(decryptPrivateKey(envelope, MASTER, 'kid-1'), '{"d":"secret"}');
    assert.throws(() => decryptPrivateKey(envelope, 'x'.repeat(40), 'kid-1'), KeyDecryptionError);
    assert.throws(() => decryptPrivateKey(envelope, MASTER, 'kid-2'), KeyDecryptionError);
    const parts = envelope.split('.');
    parts[3] = Buffer.from('tampered').toString('base64url');
    assert.throws(() => decryptPrivateKey(parts.join('.'), MASTER, 'kid-1'), KeyDecryptionError);
    assert.notEqual(encryptPrivateKey('same', MASTER, 'k'), encryptPrivateKey('same', MASTER, 'k'), 'fresh IV each time');
  });
});

describeOnEachDatabase('signing keys', (getDb, target) => {

  it('creates exactly one first key when instances start at the same time', async () => {
    const created = await Promise.all(Array.from({ length: 6 }, () => ensureSigningKey(getDb().db, MASTER)));
    assert.equal(created.filter((k) => k !== null).length, 1);
    const keys = await listSigningKeys(getDb().db);
    assert.equal(keys.length, 1);
    assert.equal(keys[0]!.encrypted, true);
    assert.doesNotMatch(keys[0]!.privateKey, /"d"/, 'no clear private key in the row');
    assert.equal(await ensureSigningKey(getDb().db, MASTER), null, 'later starts create nothing');
  });

  it('needs the master key to load an encrypted key', async () => {
    await assert.rejects(loadKeyRing(getDb().db, { masterKey: null, accessTokenTtlSeconds: 3600 }), /MASTER_KEY/);
    await assert.rejects(loadKeyRing(getDb().db, { masterKey: 'w'.repeat(40), accessTokenTtlSeconds: 3600 }), KeyDecryptionError);
    const ring = await loadKeyRing(getDb().db, { masterKey: MASTER, accessTokenTtlSeconds: 3600 });
    assert.equal(ring.jwks.keys.length, 1);
    assert.equal(ring.jwks.keys[0]!.d, undefined, 'the JWKS never holds private parts');
  });

  it('rotation: the new key signs, the retired one stays published until TTL + skew', async () => {
    const before = await loadKeyRing(getDb().db, { masterKey: MASTER, accessTokenTtlSeconds: 3600 });
    const rotation = await rotateSigningKey(getDb().db, MASTER);
    assert.deepEqual(rotation.retired, [before.signing.kid]);
    const after = await loadKeyRing(getDb().db, { masterKey: MASTER, accessTokenTtlSeconds: 3600 });
    assert.equal(after.signing.kid, rotation.kid);
    assert.deepEqual(after.jwks.keys.map((k) => k.kid).sort(), [before.signing.kid, rotation.kid].sort());
    const later = new Date(Date.now() + (3600 + RETIREMENT_SKEW_SECONDS + 5) * 1000);
    const expired = await loadKeyRing(getDb().db, { masterKey: MASTER, accessTokenTtlSeconds: 3600, now: later });
    assert.deepEqual(expired.jwks.keys.map((k) => k.kid), [rotation.kid]);
    assert.equal(expired.verification.has(before.signing.kid), false);
  });

  it('warns loudly outside development when MASTER_KEY is unset, and stores the key in clear', async () => {
    const fresh = await target.open();
    try {
      const { log, lines } = capturingLogger();
      const store = new KeyStore({ db: fresh.db, masterKey: null, accessTokenTtlSeconds: 3600, env: 'production', log });
      await store.start();
      store.stop();
      const warning = lines().find((l) => l.level === 40 && /MASTER_KEY/.test(String(l.msg)));
      assert.ok(warning, 'a warning names MASTER_KEY');
      assert.equal((await listSigningKeys(fresh.db))[0]!.encrypted, false);
      const quiet = capturingLogger();
      const dev = new KeyStore({ db: fresh.db, masterKey: null, accessTokenTtlSeconds: 3600, env: 'development', log: quiet.log });
      await dev.start();
      dev.stop();
      assert.equal(quiet.lines().filter((l) => l.level === 40).length, 0);
    } finally {
      await fresh.close();
    }
  });

  it('instances on one database accept each other’s tokens across a rotation', async () => {
    const shared = await target.open();
    const config = testConfig({ MASTER_KEY: MASTER });
    // Periodic refresh far away: only the refresh on an unknown kid can explain acceptance.
    const a = await buildOAuthTestApp(shared, { config, keyRefreshIntervalMs: 3_600_000 });
    const b = await buildOAuthTestApp(shared, { config, keyRefreshIntervalMs: 3_600_000 });
    try {
      assert.equal(a.oauth.keys.current().signing.kid, b.oauth.keys.current().signing.kid);
      const client = await seedClient(shared.db, { scopes: [SCOPES.read] });
      const oldToken = await obtainToken(a, client);
      await rotateSigningKey(shared.db, MASTER); // as `certdesk keys rotate` does
      await b.oauth.keys.refresh();
      const newToken = await obtainToken(b, client);
      assert.notEqual(decodeProtectedHeader(newToken).kid, decodeProtectedHeader(oldToken).kid);
      assert.equal((await a.inject({ url: '/test/read', headers: { authorization: `Bearer ${newToken}` } })).statusCode, 200);
      assert.equal((await b.inject({ url: '/test/read', headers: { authorization: `Bearer ${oldToken}` } })).statusCode, 200);
      const jwks = (await a.inject({ url: '/.well-known/jwks.json' })).json() as { keys: Array<{ kid: string }> };
      assert.equal(jwks.keys.length, 2);
      assert.equal(a.oauth.keys.current().signing.kid, decodeProtectedHeader(newToken).kid, 'A now signs with the new key');
    } finally {
      await a.close();
      await b.close();
      await shared.close();
    }
  });
});
