/**
 * The transparency log, server side (DECISIONS 14), through the real application on PGlite and
 * PostgreSQL: certificates certified and revoked through the real review routes appear in the log with
 * their entries; both certificate routes carry `transparency_log` with an inclusion proof that leads to a
 * checkpoint signed by `/log/key`; the tiles and bundles under `/log/` are the C2SP layout of exactly those
 * entries, with the caching headers of DECISIONS 14; missing or malformed tile paths are 404; a
 * revocation of an issuance the log has not sequenced yet still gives both entries, in order. Proofs are
 * checked here with the project's own Merkle code (the independent verifier is test/transparency-log/
 * independent-verifier.test.ts); the entry text is recomputed with the `canonicalize` RFC 8785 library.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, it } from 'node:test';
import canonicalize from 'canonicalize';
import { sql } from 'kysely';
import { leafHash, openCheckpoint, rootOf, tilePath, verifyInclusion } from '../../src/domain/transparency-log/index.js';
import { eventually, sequenceLog } from '../helpers/certificates.js';
import { describeOnEachDatabase } from '../helpers/database.js';
import { decide, openOrder, openReviewWorld, postForm, type ReviewWorld } from '../review/review-world.js';

interface LogProof {
  index: number;
  entry: string;
  inclusion_proof: string[];
  checkpoint: string;
}
interface CertificateObject {
  certificate_id: string;
  status: 'valid' | 'revoked';
  issued_at: string;
  revoked_at: string | null;
  jws: string;
  transparency_log: { origin: string; issued: LogProof; revoked: LogProof | null } | null;
}

const ORIGIN = 'api.certdesk.test/log';

describeOnEachDatabase('transparency log (server)', (getDb) => {
  let w: ReviewWorld;
  let key: string;

  before(async () => {
    w = await openReviewWorld(getDb(), 8);
    const res = await w.app.inject({ url: '/log/key' });
    assert.equal(res.statusCode, 200);
    key = res.body.trim();
  });
  after(async () => {
    await w?.close();
  });

  async function ownCertificate(orderId: string): Promise<CertificateObject> {
    const res = await w.app.inject({ url: `/v1/orders/${orderId}/certificate`, headers: { authorization: `Bearer ${w.customerToken}` } });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as CertificateObject;
  }
  async function publicCertificate(id: string): Promise<CertificateObject> {
    const res = await w.app.inject({ url: `/v1/certificates/${id}` });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as CertificateObject;
  }
  async function certify(orderId: string): Promise<void> {
    const { claimId } = await openOrder(w, 'rita', orderId);
    const decided = await decide(w, 'rita', orderId, 'certify', `certified ${orderId}`, claimId!);
    assert.equal(decided.statusCode, 200, decided.body);
    assert.match(decided.body, /The order is now Human Certified/);
  }
  async function revoke(orderId: string): Promise<void> {
    const revoked = await postForm(w, 'rita', `/review/orders/${orderId}/certificate/revoke`, { reason: `withdrawn ${orderId}` });
    assert.equal(revoked.statusCode, 303, revoked.body);
  }
  async function tile(path: string): Promise<{ status: number; body: Buffer; headers: Record<string, unknown> }> {
    const res = await w.app.inject({ url: `/log/${path}` });
    return { status: res.statusCode, body: res.rawPayload, headers: res.headers };
  }
  function expectedEntry(type: 'certificate.issued' | 'certificate.revoked', at: string, jws: string): string {
    return canonicalize({ at, certificate_sha256: createHash('sha256').update(jws).digest('hex'), type })!;
  }
  /** The proof leads from the entry to the root of a checkpoint signed by the log's key. */
  function assertIncluded(proof: LogProof): void {
    const checkpoint = openCheckpoint(proof.checkpoint, key);
    assert.equal(checkpoint.origin, ORIGIN);
    const path = proof.inclusion_proof.map((h) => Buffer.from(h, 'base64'));
    assert.ok(verifyInclusion(leafHash(Buffer.from(proof.entry, 'utf8')), proof.index, checkpoint.size, path, checkpoint.root), `entry ${proof.index} in ${checkpoint.size}`);
  }

  it('serves the verifier key: <origin>+<key id>+<Ed25519 key>, public and CORS open', async () => {
    assert.match(key, /^api\.certdesk\.test\/log\+[0-9a-f]{8}\+[A-Za-z0-9+/]{44}$/);
    const res = await w.app.inject({ url: '/log/key' });
    assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8');
    assert.equal(res.headers['access-control-allow-origin'], '*');
    assert.equal(res.body, `${key}\n`);
    // The key never changes: a second app on the same database serves the same one.
    assert.equal(await w.app.services.transparencyLog.verifierKey(), key);
  });

  it('certificates certified and revoked through the review routes appear in the log, on both routes, with proofs to signed checkpoints', async () => {
    const orders = ['q0', 'q1', 'q2', 'q3'];
    for (const order of orders) await certify(order);
    await revoke('q1');
    const certificates = new Map<string, CertificateObject>();
    for (const order of orders) {
      const own = await eventually(
        () => ownCertificate(order),
        (c) => c.transparency_log !== null && (c.status === 'valid' || c.transparency_log.revoked !== null),
        `${order} in the log`,
      );
      certificates.set(order, own);
      const { transparency_log: log } = own;
      assert.equal(log!.origin, ORIGIN);
      assert.equal(log!.issued.entry, expectedEntry('certificate.issued', own.issued_at, own.jws));
      assertIncluded(log!.issued);
      if (order === 'q1') {
        assert.equal(own.status, 'revoked');
        assert.equal(log!.revoked!.entry, expectedEntry('certificate.revoked', own.revoked_at!, own.jws));
        assert.ok(log!.revoked!.index > log!.issued.index);
        assertIncluded(log!.revoked!);
      } else assert.equal(log!.revoked, null);
      // The public route shows the same log data (its cache never keeps an answer the log lacks).
      const pub = await eventually(() => publicCertificate(own.certificate_id), (c) => JSON.stringify(c.transparency_log) === JSON.stringify(log), `${order} public`);
      assert.deepEqual(pub.transparency_log, log);
    }
    const indexes = [...certificates.values()].flatMap((c) => [c.transparency_log!.issued.index, ...(c.transparency_log!.revoked ? [c.transparency_log!.revoked.index] : [])]);
    assert.equal(new Set(indexes).size, indexes.length, 'every event has an index of its own');

    // The published checkpoint and the tiles are exactly these entries (a tree smaller than one tile).
    const note = (await tile('checkpoint')).body.toString('utf8');
    const checkpoint = openCheckpoint(note, key);
    const size = checkpoint.size;
    assert.ok(size >= 5);
    const bundle = await tile(tilePath({ level: 'entries', index: 0, width: size }));
    assert.equal(bundle.status, 200);
    assert.equal(bundle.headers['content-type'], 'application/octet-stream');
    assert.equal(bundle.headers['cache-control'], 'public, max-age=60');
    assert.equal(bundle.headers['access-control-allow-origin'], '*');
    const entries: Buffer[] = [];
    for (let at = 0; at < bundle.body.length; ) {
      const length = bundle.body.readUInt16BE(at);
      entries.push(bundle.body.subarray(at + 2, at + 2 + length));
      at += 2 + length;
    }
    assert.equal(entries.length, size);
    for (const c of certificates.values()) {
      assert.equal(entries[c.transparency_log!.issued.index]!.toString('utf8'), c.transparency_log!.issued.entry);
      if (c.transparency_log!.revoked) assert.equal(entries[c.transparency_log!.revoked.index]!.toString('utf8'), c.transparency_log!.revoked.entry);
    }
    const hashes = await tile(tilePath({ level: 0, index: 0, width: size }));
    assert.equal(hashes.status, 200);
    assert.ok(hashes.body.equals(Buffer.concat(entries.map((e) => leafHash(e)))));
    assert.ok(rootOf(entries.map((e) => leafHash(e))).equals(checkpoint.root), 'the tiles give the signed root');
    const cp = await tile('checkpoint');
    assert.equal(cp.headers['content-type'], 'text/plain; charset=utf-8');
    assert.equal(cp.headers['cache-control'], 'no-cache');
    // Every size a checkpoint was signed for keeps its partial tile.
    const signed = await sql<{ tree_size: number }>`SELECT tree_size FROM transparency_log_checkpoints WHERE tree_size > 0`.execute(getDb().db);
    for (const { tree_size } of signed.rows) {
      assert.equal((await tile(tilePath({ level: 0, index: 0, width: tree_size }))).status, 200, `partial tile of size ${tree_size}`);
      assert.equal((await tile(tilePath({ level: 'entries', index: 0, width: tree_size }))).status, 200, `partial bundle of size ${tree_size}`);
    }
  });

  it('a revocation of an issuance not yet sequenced gives both entries, the issuance first', async () => {
    const { sequencer } = w.app.services.transparencyLog;
    await sequencer.stop();
    try {
      await certify('q4');
      await revoke('q4');
      const waiting = await ownCertificate('q4');
      assert.equal(waiting.status, 'revoked');
      assert.equal(waiting.transparency_log, null, 'null until sequenced');
      assert.equal((await publicCertificate(waiting.certificate_id)).transparency_log, null);
      await sequenceLog(w.app);
      const logged = await ownCertificate('q4');
      assert.equal(logged.transparency_log!.revoked!.index, logged.transparency_log!.issued.index + 1);
      assertIncluded(logged.transparency_log!.issued);
      assertIncluded(logged.transparency_log!.revoked!);
      assert.deepEqual((await publicCertificate(waiting.certificate_id)).transparency_log, logged.transparency_log);
    } finally {
      sequencer.start();
    }
  });

  it('tiles that do not exist are 404 and malformed tile paths are 404, never an empty 200 or a 500', async () => {
    for (const path of [
      'tile/0/001',
      'tile/0/000',
      'tile/1/000.p/1',
      'tile/entries/x001/000',
      'tile/0/000.p/255',
      'tile/64/000',
      'tile/0/0000',
      'tile/0/000.p/0',
      'tile/0/000.p/256',
      'tile/0/x000/001',
      'tile/entries',
      'tile/0/..%2F..%2Fcheckpoint',
      'tile/abc/000',
      'tile/0/000.p/5/extra',
      'tile/',
    ]) {
      const res = await tile(path);
      assert.equal(res.status, 404, path);
      assert.deepEqual(Object.keys(JSON.parse(res.body.toString()) as object), ['detail'], path);
      assert.equal(res.headers['cache-control'], 'no-store', path);
    }
    // Text no route accepts (U+0000) is refused where it enters, as on every route: 422 naming the field.
    const nul = await tile('tile/0/%00');
    assert.equal(nul.status, 422);
  });
});
