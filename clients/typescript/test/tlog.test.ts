/**
 * The transparency-log verifier (src/tlog/) against published vectors and an in-memory tiled log:
 * - C2SP signed-note: the Go reference implementation's example key and note (golang.org/x/mod/sumdb/note,
 *   "PeterNeumann"), verified, and refused when mangled;
 * - RFC 6962 hashing and proofs: the roots, inclusion and consistency paths of the 8-leaf reference tree
 *   published with certificate-transparency-go / transparency-dev/merkle, verified (RFC 9162 algorithms)
 *   and rebuilt (RFC 6962 PATH/PROOF), and every corruption of them refused;
 * - C2SP tlog-tiles: path encoding, consistency from tiles, and a full audit of logs of 0 to 66,049 entries.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import {
  auditLog,
  consistencyProof,
  encodeTileIndex,
  inclusionProof,
  leafHash,
  LogReader,
  openSignedNote,
  parseCheckpointText,
  parseVerifierKey,
  proveConsistency,
  rootOf,
  TiledTree,
  TransparencyLogError,
  proofsOfCredentialedFile,
  verifyCertificateInLog,
  verifyCheckpoint,
  verifyConsistency,
  verifyInclusion,
  currentCheckpoint,
} from '../src/index.js';
import { entryText, leafHashOf, makeKey, MemoryLog, ORIGIN, PREFIX, signNote } from './tlog-fixture.js';

const hx = (h: string): Uint8Array => new Uint8Array(Buffer.from(h, 'hex'));

// golang.org/x/mod/sumdb/note note_test.go: the example verifier key and the note it signed.
const GO_VKEY = 'PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW';
const GO_TEXT = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n";
const GO_NOTE = `${GO_TEXT}\n\u2014 PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n`;

// transparency-dev/merkle proof/verify_test.go (the certificate-transparency reference tree).
const LEAVES = ['', '00', '10', '2021', '3031', '40414243', '5051525354555657', '606162636465666768696a6b6c6d6e6f'].map(hx);
const ROOTS = [
  '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
  'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
  'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
  'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
  '4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4',
  '76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef',
  'ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c',
  '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
].map(hx);
const rootOfSize = (n: number) => ROOTS[n - 1]!;
/** [leaf (1-based, as published), size, path] */
const INCLUSION: Array<[number, number, string[]]> = [
  [1, 8, ['96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7', '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e', '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4']],
  [6, 8, ['bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b', 'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0', 'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7']],
  [3, 3, ['fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125']],
  [2, 5, ['6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d', '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e', 'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b']],
];
const CONSISTENCY: Array<[number, number, string[]]> = [
  [1, 1, []],
  [1, 8, ['96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7', '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e', '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4']],
  [6, 8, ['0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a', 'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0', 'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7']],
  [2, 5, ['5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e', 'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b']],
  [6, 7, ['0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a', 'b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f', 'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7']],
];

async function rejects(promise: Promise<unknown>, reason: string): Promise<void> {
  await assert.rejects(promise, (error: unknown) => error instanceof TransparencyLogError && error.reason === reason);
}

describe('C2SP signed notes (the Go note package vector)', () => {
  it('reads the example key and verifies the example note', async () => {
    const key = await parseVerifierKey(GO_VKEY);
    assert.equal(key.name, 'PeterNeumann');
    assert.equal(key.keyId, 0xc74f20a3);
    const note = await openSignedNote(GO_NOTE, [key]);
    assert.equal(note.text, GO_TEXT);
    assert.deepEqual(note.verifiedBy, [key]);
  });

  it('refuses mangled keys, a changed text, a changed signature, and notes without a known signature', async () => {
    const key = await parseVerifierKey(GO_VKEY);
    for (const bad of ['PeterNeumann+c74f20a4+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW', 'PeterNeumanN+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW', 'PeterNeumann+c74f20a3+AhpjMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW', 'PeterNeumann+c74f20a3', 'PeterNeumann+C74F20A3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW', '+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW']) {
      await rejects(parseVerifierKey(bad), 'key');
    }
    await rejects(openSignedNote(GO_NOTE.replace('cryptography', 'cryptographY'), [key]), 'signature');
    await rejects(openSignedNote(GO_NOTE.replace('x08go/', 'x08go+'), [key]), 'signature');
    // Another key with the same name (a different id): its signature is ignored, so nothing known signed.
    const other = makeKey('PeterNeumann');
    await rejects(openSignedNote(GO_NOTE, [await parseVerifierKey(other.keyString)]), 'signature');
    // An unknown signature beside a good one is ignored; the note still verifies.
    const stranger = makeKey('witness.example/w1');
    const cosigned = signNote(GO_TEXT, stranger).replace(`${GO_TEXT}\n`, GO_NOTE);
    assert.equal((await openSignedNote(cosigned, [key])).text, GO_TEXT);
    for (const malformed of [GO_NOTE.slice(0, -1), GO_TEXT, GO_NOTE.replace('\u2014 ', '-- '), GO_NOTE.replace('If', 'I\tf')]) {
      await rejects(openSignedNote(malformed, [key]), 'format');
    }
  });
});

describe('RFC 6962 hashing and proofs (the certificate-transparency reference tree)', () => {
  const leafHashes = () => Promise.all(LEAVES.map((l) => leafHash(l)));
  const hashRange = async (start: number, end: number) => rootOf((await leafHashes()).slice(start, end));

  it('computes the published roots of sizes 1 to 8, and the empty tree', async () => {
    const hashes = await leafHashes();
    for (let n = 1; n <= 8; n++) assert.deepEqual(await rootOf(hashes.slice(0, n)), rootOfSize(n), `size ${n}`);
    assert.equal(Buffer.from(await rootOf([])).toString('hex'), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  it('verifies and rebuilds the published inclusion proofs, and refuses every corruption of them', async () => {
    const hashes = await leafHashes();
    for (const [leaf, size, pathHex] of INCLUSION) {
      const index = leaf - 1;
      const path = pathHex.map(hx);
      const root = rootOfSize(size);
      assert.ok(await verifyInclusion(hashes[index]!, index, size, path, root), `${index}/${size}`);
      assert.deepEqual(await inclusionProof(index, size, hashRange), path);
      const corrupt: Array<[number, number, Uint8Array[], Uint8Array, Uint8Array]> = [
        [index - 1, size, path, root, hashes[index]!],
        [index + 1, size, path, root, hashes[index]!],
        [index ^ 2, size, path, root, hashes[index]!],
        [index, size * 2, path, root, hashes[index]!],
        [index, Math.floor(size / 2), path, root, hashes[index]!],
        [index, size, path, root, hashes[(index + 1) % 8]!],
        [index, size, path, rootOfSize(1 + (size % 8)), hashes[index]!],
        [index, size, [...path, root], root, hashes[index]!],
        [index, size, [root, ...path], root, hashes[index]!],
        [index, size, path.slice(0, -1), root, hashes[index]!],
        ...path.map((_, i): [number, number, Uint8Array[], Uint8Array, Uint8Array] => [index, size, path.map((h, j) => (j === i ? h.map((b, k) => (k === 0 ? b ^ 8 : b)) : h)), root, hashes[index]!]),
      ];
      for (const [i, s, p, r, l] of corrupt) assert.equal(await verifyInclusion(l, i, s, p, r), false, `corrupt ${i}/${s}/${p.length}`);
    }
  });

  it('verifies and rebuilds the published consistency proofs, and refuses every corruption of them', async () => {
    for (const [size1, size2, pathHex] of CONSISTENCY) {
      const proof = pathHex.map(hx);
      const root1 = rootOfSize(size1);
      const root2 = rootOfSize(size2);
      assert.ok(await verifyConsistency(size1, size2, proof, root1, root2), `${size1}->${size2}`);
      assert.deepEqual(await consistencyProof(size1, size2, hashRange), proof);
      if (proof.length === 0) continue;
      const some = hx('abacaba000000000000000000000000000000000000000000060061e00123456');
      const corrupt: Array<[number, number, Uint8Array[], Uint8Array, Uint8Array]> = [
        [size1 - 1, size2, proof, root1, root2],
        [size1 + 1, size2, proof, root1, root2],
        [size1 ^ 2, size2, proof, root1, root2],
        [size1, size2 * 2, proof, root1, root2],
        [size1, Math.floor(size2 / 2), proof, root1, root2],
        [size1, size2, proof, some, root2],
        [size1, size2, proof, root1, some],
        [size1, size2, proof, root2, root1],
        [size1, size2, [], root1, root2],
        [size1, size2, [...proof, root1], root1, root2],
        [size1, size2, [...proof, root2], root1, root2],
        [size1, size2, [root1, ...proof], root1, root2],
        [size1, size2, [root2, ...proof], root1, root2],
        [size1, size2, [proof[0]!, ...proof], root1, root2],
        [size1, size2, proof.slice(0, -1), root1, root2],
        ...proof.map((_, i): [number, number, Uint8Array[], Uint8Array, Uint8Array] => [size1, size2, proof.map((h, j) => (j === i ? h.map((b, k) => (k === 0 ? b ^ 16 : b)) : h)), root1, root2]),
      ];
      for (const [s1, s2, p, r1, r2] of corrupt) assert.equal(await verifyConsistency(s1, s2, p, r1, r2), false, `corrupt ${s1}->${s2}/${p.length}`);
    }
    // The edge cases of RFC 9162: from the empty tree, equal sizes, shrinking.
    const [r1, r2] = [rootOfSize(1), rootOfSize(2)];
    assert.ok(await verifyConsistency(0, 1, [], r1, r2));
    assert.ok(await verifyConsistency(1, 1, [], r1, r1));
    assert.equal(await verifyConsistency(1, 1, [], r1, r2), false);
    assert.equal(await verifyConsistency(2, 1, [], r2, r1), false);
    assert.equal(await verifyConsistency(1, 2, [], r1, r2), false);
  });
});

describe('C2SP tlog-tiles', () => {
  it('encodes tile indexes in 3-digit groups, all but the last prefixed with x', () => {
    assert.equal(encodeTileIndex(0), '000');
    assert.equal(encodeTileIndex(5), '005');
    assert.equal(encodeTileIndex(1000), 'x001/000');
    assert.equal(encodeTileIndex(1234067), 'x001/x234/067');
  });

  function entries(count: number, from = 0): Buffer[] {
    return Array.from({ length: count }, (_, i) => Buffer.from(entryText('certificate.issued', createHash('sha256').update(`c${from + i}`).digest('hex'), '2026-01-01T00:00:00.000Z')));
  }

  it('proves consistency between every pair of checkpoints of a growing log from its tiles, and audits it whole', async () => {
    const key = makeKey();
    const log = new MemoryLog(key);
    const reader = new LogReader(PREFIX, log.fetch);
    const verifier = await parseVerifierKey(key.keyString);
    const notes = [0, 1, 2, 255, 1, 256, 13, 300].map((n, i, all) => log.append(entries(n, all.slice(0, i).reduce((a, b) => a + b, 0))));
    for (let i = 0; i < notes.length; i++) {
      for (let j = i; j < notes.length; j++) {
        const result = await proveConsistency(reader, verifier, notes[i]!, notes[j]!);
        assert.equal(result.old.size, parseCheckpointText(notes[i]!.split('\n\n')[0]! + '\n').size);
      }
    }
    const report = await auditLog(reader, await currentCheckpoint(reader, verifier));
    assert.equal(report.entries, 828);
    assert.equal(report.issued, 828);
  });

  it('a log that rewrote history, shrank, or whose tiles lie is refused', async () => {
    const key = makeKey();
    const honest = new MemoryLog(key);
    const old = honest.append(entries(700));
    const forked = new MemoryLog(key);
    forked.append([...entries(699), ...entries(1, 5000)]);
    const forkNote = forked.append(entries(50, 700));
    const verifier = await parseVerifierKey(key.keyString);
    await rejects(proveConsistency(new LogReader(PREFIX, forked.fetch), verifier, old), 'consistency');
    await rejects(proveConsistency(new LogReader(PREFIX, honest.fetch), verifier, forkNote, old), 'consistency');
    // A tile altered after signing: the audit and the consistency check both notice.
    const tampered = new MemoryLog(key);
    tampered.append(entries(600));
    const tile = tampered.files.get('tile/0/001')!;
    tile.writeUInt8(tile.readUInt8(5) ^ 1, 5);
    const reader = new LogReader(PREFIX, tampered.fetch);
    await rejects(auditLog(reader, await currentCheckpoint(reader, verifier)), 'audit');
    await rejects(proveConsistency(reader, verifier, old.replace('700', '700')), 'consistency');
    // A checkpoint of another log or signed by another key.
    await rejects(verifyCheckpoint(old, await parseVerifierKey(makeKey().keyString)), 'signature');
    const elsewhere = makeKey('elsewhere.test/log');
    await rejects(verifyCheckpoint(signNote('log.test/log\n1\n' + Buffer.alloc(32).toString('base64') + '\n', elsewhere), await parseVerifierKey(elsewhere.keyString)), 'origin');
  });

  it('an entry bundle that does not match its tile, or a revocation before any issuance, fails the audit', async () => {
    const key = makeKey();
    const verifier = await parseVerifierKey(key.keyString);
    const log = new MemoryLog(key);
    log.append(entries(3));
    const bundle = log.files.get('tile/entries/000.p/3')!;
    log.files.set('tile/entries/000.p/3', Buffer.concat([bundle.subarray(0, bundle.length - 1), Buffer.from('!')]));
    const reader = new LogReader(PREFIX, log.fetch);
    await rejects(auditLog(reader, await currentCheckpoint(reader, verifier)), 'audit');
    const revokedFirst = new MemoryLog(key);
    revokedFirst.append([Buffer.from(entryText('certificate.revoked', 'a'.repeat(64), '2026-01-01T00:00:00.000Z'))]);
    const r2 = new LogReader(PREFIX, revokedFirst.fetch);
    await assert.rejects(auditLog(r2, await currentCheckpoint(r2, verifier)), /never issued/);
  });

  it('a partial tile or bundle gone once the full one exists: the full one is read instead (tlog-tiles allows deleting them)', async () => {
    const key = makeKey();
    const log = new MemoryLog(key);
    const verifier = await parseVerifierKey(key.keyString);
    const older = await verifyCheckpoint(log.append(entries(200)), verifier);
    log.append(entries(100, 200));
    log.files.delete('tile/0/000.p/200');
    log.files.delete('tile/entries/000.p/200');
    const reader = new LogReader(PREFIX, log.fetch);
    log.requested.length = 0;
    assert.equal((await auditLog(reader, older)).entries, 200);
    assert.deepEqual(log.requested.filter((p) => p.startsWith('tile/0/') || p.startsWith('tile/entries/')).sort(), ['tile/0/000', 'tile/0/000.p/200', 'tile/entries/000', 'tile/entries/000.p/200']);
  });

  it('audits a log of 66,049 entries (three tile levels), fetching each tile and bundle once', async () => {
    const key = makeKey();
    const log = new MemoryLog(key);
    log.append(entries(256 * 256 + 513));
    const reader = new LogReader(PREFIX, log.fetch);
    const verifier = await parseVerifierKey(key.keyString);
    log.requested.length = 0;
    const report = await auditLog(reader, await currentCheckpoint(reader, verifier));
    assert.equal(report.entries, 66_049);
    assert.ok(log.requested.includes('tile/2/000.p/1'));
    assert.ok(log.requested.includes('tile/1/000'));
    assert.ok(log.requested.includes('tile/1/001.p/2'));
    assert.ok(log.requested.includes('tile/entries/258.p/1'));
    assert.equal(new Set(log.requested).size, log.requested.length);
    // Consistency from a small old tree to this one needs only a few tiles.
    const tree = new TiledTree(reader, 66_049);
    assert.deepEqual(Buffer.from(await tree.root()), Buffer.from(parseCheckpointText(log.checkpoints[0]!.split('\n\n')[0]! + '\n').rootHash));
  });
});

describe('a certificate in the log', () => {
  const jws = 'eyJhbGciOiJFUzI1NiJ9.eyJqdGkiOiJ4In0.c2ln';
  const sha = createHash('sha256').update(jws).digest('hex');
  const iat = Math.floor(Date.parse('2026-03-01T10:00:00.250Z') / 1000);

  async function logged(revoke: boolean) {
    const key = makeKey();
    const log = new MemoryLog(key);
    const issued = entryText('certificate.issued', sha, '2026-03-01T10:00:00.250Z');
    const revoked = entryText('certificate.revoked', sha, '2026-03-02T10:00:00.000Z');
    log.append([...entries(5), Buffer.from(issued), ...entries(3, 10), ...(revoke ? [Buffer.from(revoked)] : [])]);
    const reader = new LogReader(PREFIX, log.fetch);
    const tree = new TiledTree(reader, log.entries.length);
    const proofOf = async (index: number, entry: string) => ({
      index,
      entry,
      inclusion_proof: (await inclusionProof(index, log.entries.length, (s, e) => tree.rangeHash(s, e))).map((h) => Buffer.from(h).toString('base64')),
      checkpoint: log.checkpoints[0]!,
    });
    return {
      verifier: await parseVerifierKey(key.keyString),
      object: { origin: ORIGIN, issued: await proofOf(5, issued), revoked: revoke ? await proofOf(9, revoked) : null },
    };
  }
  function entries(n: number, from = 0): Buffer[] {
    return Array.from({ length: n }, (_, i) => Buffer.from(entryText('certificate.issued', createHash('sha256').update(`o${from + i}`).digest('hex'), '2026-01-01T00:00:00.000Z')));
  }

  it('an issued and a revoked certificate verify with their 0-based indexes', async () => {
    const { verifier, object } = await logged(true);
    const status = await verifyCertificateInLog({ jws, issuedAtSeconds: iat, transparencyLog: object, logKey: verifier });
    assert.equal(status.status, 'included');
    if (status.status !== 'included') return;
    assert.equal(status.issued.index, 5);
    assert.equal(status.revoked?.index, 9);
    assert.equal(status.issued.checkpoint.size, 10);
  });

  it('another certificate, a wrong proof, a foreign checkpoint, a missing entry after 60 s are refused; pending before', async () => {
    const { verifier, object } = await logged(false);
    await rejects(verifyCertificateInLog({ jws: `${jws}x`, issuedAtSeconds: iat, transparencyLog: object, logKey: verifier }), 'entry');
    await rejects(verifyCertificateInLog({ jws, issuedAtSeconds: iat + 5, transparencyLog: object, logKey: verifier }), 'entry');
    await rejects(verifyCertificateInLog({ jws, issuedAtSeconds: iat, transparencyLog: { ...object, issued: { ...object.issued, index: 4 } }, logKey: verifier }), 'inclusion');
    await rejects(verifyCertificateInLog({ jws, issuedAtSeconds: iat, transparencyLog: { ...object, issued: { ...object.issued, inclusion_proof: object.issued.inclusion_proof.slice(1) } }, logKey: verifier }), 'inclusion');
    await rejects(verifyCertificateInLog({ jws, issuedAtSeconds: iat, transparencyLog: object, logKey: await parseVerifierKey(makeKey().keyString) }), 'signature');
    const issuedMs = iat * 1000;
    assert.deepEqual(await verifyCertificateInLog({ jws, issuedAtSeconds: iat, transparencyLog: null, logKey: verifier, now: issuedMs + 59_000 }), { status: 'pending', issuedAgoMs: 59_000 });
    await rejects(verifyCertificateInLog({ jws, issuedAtSeconds: iat, transparencyLog: null, logKey: verifier, now: issuedMs + 61_000 }), 'missing');
    // Revoked by the service but the revocation not in the log after 60 s.
    await rejects(verifyCertificateInLog({ jws, issuedAtSeconds: iat, transparencyLog: object, logKey: verifier, revokedAt: '2026-03-02T10:00:00.000Z', now: Date.parse('2026-03-02T10:01:01.000Z') }), 'missing');
    const pending = await verifyCertificateInLog({ jws, issuedAtSeconds: iat, transparencyLog: object, logKey: verifier, revokedAt: '2026-03-02T10:00:00.000Z', now: Date.parse('2026-03-02T10:00:30.000Z') });
    assert.equal(pending.status === 'included' && pending.revocationPending, true);
    assert.equal(leafHashOf(Buffer.from('x')).length, 32);
  });

  it("a credentialed file's issuance proof with the live record's revocation proof verifies long after the revocation", async () => {
    const { verifier, object: live } = await logged(true);
    // What the file carries: the issuance proof as it was when the file was credentialed, no revocation.
    const carried = { ...live, revoked: null };
    const late = { jws, issuedAtSeconds: iat, logKey: verifier, revokedAt: '2026-03-02T10:00:00.000Z', now: Date.parse('2026-03-09T10:00:00.000Z') };
    await rejects(verifyCertificateInLog({ ...late, transparencyLog: carried }), 'missing');
    const status = await verifyCertificateInLog({ ...late, transparencyLog: proofsOfCredentialedFile(carried, live) });
    assert.equal(status.status === 'included' && status.revoked?.index, 9);
    // Nothing to add: the carried object as it is; no file: the live one; another log's revocation is not taken.
    assert.equal(proofsOfCredentialedFile(carried, { ...live, revoked: null }), carried);
    assert.equal(proofsOfCredentialedFile(undefined, live), live);
    assert.equal(proofsOfCredentialedFile(null, null), null);
    assert.equal(proofsOfCredentialedFile(carried, { ...live, origin: 'other.example/log' }), carried);
  });
});
