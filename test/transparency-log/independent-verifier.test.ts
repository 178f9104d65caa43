/**
 * The issue's "Done when": certificates certified and revoked through the real review routes appear in the
 * public transparency log, and an INDEPENDENT verifier (none of certdesk's Merkle, note or tile code)
 * checks it over HTTP, on PGlite and on PostgreSQL:
 * - the checkpoint signature of every checkpoint seen: sigstore-js's checkpoint verifier
 *   (`@sigstore/verify`, the C2SP signed-note reader Sigstore uses for Rekor checkpoints) with the
 *   Ed25519 key read from /log/key and its key id recomputed here per C2SP signed-note;
 * - the inclusion proof of every certificate's issuance and revocation: sigstore-js's RFC 6962 inclusion
 *   verifier, after the entry is recomputed here (canonical JSON by the `canonicalize` RFC 8785 library);
 * - consistency between every pair of checkpoints seen: RFC 6962 section 2.1.2 PROOF and RFC 9162
 *   section 2.1.4.2 verification written below straight from the RFCs;
 * - a full audit: every entry bundle and hash tile of the latest checkpoint fetched (C2SP tlog-tiles
 *   paths, written below), every leaf and tile hash recomputed, the root compared with the signed one.
 * Everything written here is pinned first by published vectors: the Go note package's example key and
 * note (golang.org/x/mod/sumdb/note) and the certificate-transparency reference tree's roots, inclusion and
 * consistency paths (transparency-dev/merkle proof/verify_test.go), which sigstore's verifier must pass too.
 * Then the project's own tools are run against the same log: `certdesk-client certificate --verify`,
 * `log checkpoint` and `log consistency` with every checkpoint seen.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash, createPublicKey, verify as ed25519Verify, type KeyObject } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, it } from 'node:test';
import { verifyCheckpoint as sigstoreVerifyCheckpoint } from '@sigstore/verify/dist/tlog/checkpoint.js';
import { verifyMerkleInclusion as sigstoreVerifyInclusion } from '@sigstore/verify/dist/tlog/merkle.js';
import canonicalize from 'canonicalize';
import { verifyCertificate } from '../../clients/typescript/src/index.js';
import { eventually } from '../helpers/certificates.js';
import { describeOnEachDatabase } from '../helpers/database.js';
import { TINY_PNG_BASE64 } from '../helpers/fixtures.js';
import { freePort } from '../helpers/free-port.js';
import { CLIENT, decide, openOrder, openReviewWorld, postForm, type ReviewWorld } from '../review/review-world.js';

const BIN = path.resolve('clients/typescript/dist/cli/certdesk-client.js');

// ---- RFC 6962 / RFC 9162, written here from the RFCs (not certdesk's code) ------------------------------
const sha256 = (...parts: Buffer[]): Buffer => createHash('sha256').update(Buffer.concat(parts)).digest();
const leafHash = (entry: Buffer): Buffer => sha256(Buffer.from([0x00]), entry);
const nodeHash = (left: Buffer, right: Buffer): Buffer => sha256(Buffer.from([0x01]), left, right);
/** The largest power of two smaller than n (RFC 6962 section 2.1's k). */
const split = (n: number): number => 2 ** Math.ceil(Math.log2(n) - 1);

/** MTH(D[n]) over leaf hashes, RFC 6962 section 2.1. */
function mth(leaves: Buffer[]): Buffer {
  if (leaves.length === 0) return sha256();
  if (leaves.length === 1) return leaves[0]!;
  const k = split(leaves.length);
  return nodeHash(mth(leaves.slice(0, k)), mth(leaves.slice(k)));
}

/** SUBPROOF(m, D[n], b), RFC 6962 section 2.1.2. */
function subproof(m: number, leaves: Buffer[], b: boolean): Buffer[] {
  const n = leaves.length;
  if (m === n) return b ? [] : [mth(leaves)];
  const k = split(n);
  if (m <= k) return [...subproof(m, leaves.slice(0, k), b), mth(leaves.slice(k))];
  return [...subproof(m - k, leaves.slice(k), false), mth(leaves.slice(0, k))];
}

/** RFC 9162 section 2.1.4.2, step by step. */
function verifyConsistency(first: number, second: number, firstHash: Buffer, secondHash: Buffer, consistencyPath: Buffer[]): boolean {
  if (first === second) return consistencyPath.length === 0 && firstHash.equals(secondHash);
  if (first === 0) return consistencyPath.length === 0;
  if (first > second) return false;
  // 1. An empty consistency_path fails.
  if (consistencyPath.length === 0) return false;
  const pathHashes = [...consistencyPath];
  // 2. If first is an exact power of 2, prepend first_hash.
  if (Number.isInteger(Math.log2(first))) pathHashes.unshift(firstHash);
  // 3.
  let fn = first - 1;
  let sn = second - 1;
  // 4. If LSB(fn) is set, right-shift both fn and sn equally until LSB(fn) is not set.
  while (fn % 2 === 1) [fn, sn] = [Math.floor(fn / 2), Math.floor(sn / 2)];
  // 5.
  let fr = pathHashes[0]!;
  let sr = pathHashes[0]!;
  // 6.
  for (const c of pathHashes.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      while (fn % 2 === 0 && fn !== 0) [fn, sn] = [Math.floor(fn / 2), Math.floor(sn / 2)];
    } else {
      sr = nodeHash(sr, c);
    }
    [fn, sn] = [Math.floor(fn / 2), Math.floor(sn / 2)];
  }
  // 7.
  return fr.equals(firstHash) && sr.equals(secondHash) && sn === 0;
}

// ---- C2SP signed-note keys and tlog-tiles paths, written here from the specs ----------------------------
interface LogKey {
  name: string;
  keyId: Buffer;
  publicKey: KeyObject;
}

/** `<name>+<hex key id>+<base64(0x01 || public key)>`, the key id recomputed: SHA-256(name || 0x0A || 0x01 || key)[:4]. */
function readVerifierKey(text: string): LogKey {
  const [, name, hexId, key64] = /^([^+\s]+)\+([0-9a-f]{8})\+([A-Za-z0-9+/=]+)$/.exec(text.trim()) ?? [];
  assert.ok(name && hexId && key64, `not a verifier key: ${text}`);
  const key = Buffer.from(key64, 'base64');
  assert.equal(key.length, 33);
  assert.equal(key[0], 0x01, 'an Ed25519 key (signature type 0x01)');
  const keyId = sha256(Buffer.from(`${name}\n`, 'utf8'), key).subarray(0, 4);
  assert.equal(keyId.toString('hex'), hexId, 'the key id is SHA-256(name || 0x0A || 0x01 || key)[:4]');
  // An Ed25519 public key as SPKI: the fixed 12-byte prefix of RFC 8410, then the 32 key bytes.
  const publicKey = createPublicKey({ key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), key.subarray(1)]), format: 'der', type: 'spki' });
  return { name, keyId, publicKey };
}

/** Opens a signed note with node:crypto's Ed25519: the text before the last blank line, a signature line of this key. */
function openNote(note: string, key: LogKey): string {
  const at = note.lastIndexOf('\n\n');
  const text = note.slice(0, at + 1);
  const lines = note.slice(at + 2).split('\n').filter(Boolean);
  const mine = lines.map((l) => /^\u2014 (\S+) (\S+)$/.exec(l)).find((m) => m && m[1] === key.name && Buffer.from(m[2]!, 'base64').subarray(0, 4).equals(key.keyId));
  assert.ok(mine, 'a signature line of the log key');
  assert.ok(ed25519Verify(null, Buffer.from(text), key.publicKey, Buffer.from(mine[2]!, 'base64').subarray(4)), 'the note signature verifies');
  return text;
}

function tileIndexPath(n: number): string {
  const groups: string[] = [];
  do {
    groups.unshift(String(n % 1000).padStart(3, '0'));
    n = Math.floor(n / 1000);
  } while (n > 0);
  return groups.map((g, i) => (i < groups.length - 1 ? `x${g}` : g)).join('/');
}

// ---- Published vectors ----------------------------------------------------------------------------------
const GO_VKEY = 'PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW';
const GO_NOTE =
  "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n\n\u2014 PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n";
const CT_LEAVES = ['', '00', '10', '2021', '3031', '40414243', '5051525354555657', '606162636465666768696a6b6c6d6e6f'].map((h) => Buffer.from(h, 'hex'));
const CT_ROOTS = ['6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d', 'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125', 'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77', 'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7', '4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4', '76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef', 'ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c', '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328'].map((h) => Buffer.from(h, 'hex'));
const CT_INCLUSION: Array<[number, number, string[]]> = [
  [0, 8, ['96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7', '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e', '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4']],
  [5, 8, ['bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b', 'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0', 'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7']],
  [2, 3, ['fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125']],
  [1, 5, ['6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d', '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e', 'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b']],
];
const CT_CONSISTENCY: Array<[number, number, string[]]> = [
  [1, 8, ['96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7', '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e', '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4']],
  [6, 8, ['0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a', 'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0', 'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7']],
  [2, 5, ['5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e', 'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b']],
  [6, 7, ['0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a', 'b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f', 'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7']],
];

/** sigstore-js's checkpoint verifier, given this log as its only trusted log. */
function sigstoreCheckpoint(note: string, key: LogKey, raw: Buffer): { origin: string; logSize: bigint; logHash: Buffer } {
  const authority = { logID: Buffer.concat([key.keyId, Buffer.alloc(28)]), baseURL: `https://${key.name}`, publicKey: createPublicKey({ key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), raw]), format: 'der', type: 'spki' }), validFor: { start: new Date(0), end: new Date(8.64e15) } };
  const entry = { inclusionProof: { checkpoint: { envelope: note } } } as unknown as Parameters<typeof sigstoreVerifyCheckpoint>[0];
  return sigstoreVerifyCheckpoint(entry, [authority]);
}

function sigstoreInclusion(entryText: string, index: number, proof: Buffer[], checkpoint: { logSize: bigint; logHash: Buffer }): void {
  const entry = { inclusionProof: { logIndex: String(index), hashes: proof }, canonicalizedBody: Buffer.from(entryText, 'utf8') } as unknown as Parameters<typeof sigstoreVerifyInclusion>[0];
  sigstoreVerifyInclusion(entry, checkpoint as Parameters<typeof sigstoreVerifyInclusion>[1]);
}

it('the independent verifier is pinned by the published vectors', () => {
  // The C2SP key id and the Ed25519 note check against the Go note package's example.
  const go = readVerifierKey(GO_VKEY);
  assert.equal(openNote(GO_NOTE, go), "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n");
  assert.throws(() => openNote(GO_NOTE.replace('problem,', 'problem;'), go));
  // RFC 6962 hashing, PROOF and RFC 9162 consistency verification against the CT reference tree.
  const leaves = CT_LEAVES.map(leafHash);
  CT_ROOTS.forEach((root, i) => assert.ok(mth(leaves.slice(0, i + 1)).equals(root), `root ${i + 1}`));
  for (const [m, n, hashes] of CT_CONSISTENCY) {
    const proof = hashes.map((h) => Buffer.from(h, 'hex'));
    assert.deepEqual(subproof(m, leaves.slice(0, n), true), proof, `PROOF(${m}, D[${n}])`);
    assert.ok(verifyConsistency(m, n, CT_ROOTS[m - 1]!, CT_ROOTS[n - 1]!, proof));
    assert.equal(verifyConsistency(m, n, CT_ROOTS[n - 1]!, CT_ROOTS[m - 1]!, proof), false);
    assert.equal(verifyConsistency(m, n, CT_ROOTS[m - 1]!, CT_ROOTS[n - 1]!, proof.slice(1)), false);
  }
  // sigstore's inclusion verifier agrees with the published audit paths, and refuses a wrong one.
  for (const [index, size, hashes] of CT_INCLUSION) {
    const checkpoint = { logSize: BigInt(size), logHash: CT_ROOTS[size - 1]! };
    const entry = { inclusionProof: { logIndex: String(index), hashes: hashes.map((h) => Buffer.from(h, 'hex')) }, canonicalizedBody: CT_LEAVES[index]! } as unknown as Parameters<typeof sigstoreVerifyInclusion>[0];
    sigstoreVerifyInclusion(entry, checkpoint as Parameters<typeof sigstoreVerifyInclusion>[1]);
    const wrong = { ...entry, canonicalizedBody: Buffer.from('not it') } as typeof entry;
    assert.throws(() => sigstoreVerifyInclusion(wrong, checkpoint as Parameters<typeof sigstoreVerifyInclusion>[1]));
  }
});

interface LogProof {
  index: number;
  entry: string;
  inclusion_proof: string[];
  checkpoint: string;
}
interface PublicCertificate {
  certificate_id: string;
  status: 'valid' | 'revoked';
  issued_at: string;
  revoked_at: string | null;
  jws: string;
  transparency_log: { origin: string; issued: LogProof; revoked: LogProof | null } | null;
}

describeOnEachDatabase('the transparency log, checked by an independent verifier', (getDb) => {
  let w: ReviewWorld;
  let base: string;
  let dir: string;
  const seen = new Map<string, string>(); // checkpoint note -> first seen

  before(async () => {
    assert.ok(existsSync(BIN), `${BIN} is missing: run \`npm run build\``);
    w = await openReviewWorld(getDb(), 8);
    const port = await freePort();
    await w.app.listen({ host: '127.0.0.1', port });
    base = `http://127.0.0.1:${port}`;
    dir = mkdtempSync(path.join(os.tmpdir(), 'certdesk-tlog-independent-'));
  });
  after(async () => {
    await w?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function get(url: string): Promise<Response> {
    return fetch(`${base}${url}`);
  }
  async function bytes(url: string): Promise<Buffer> {
    const res = await get(url);
    assert.equal(res.status, 200, `GET ${url}: ${res.status}`);
    return Buffer.from(await res.arrayBuffer());
  }
  async function keepCheckpoint(): Promise<void> {
    const note = (await bytes('/log/checkpoint')).toString('utf8');
    if (!seen.has(note)) seen.set(note, new Date().toISOString());
  }
  async function publicCertificate(orderId: string): Promise<PublicCertificate> {
    const own = await w.app.inject({ method: 'GET', url: `/v1/orders/${orderId}/certificate`, headers: { authorization: `Bearer ${w.customerToken}` } });
    assert.equal(own.statusCode, 200, own.body);
    const id = (own.json() as { certificate_id: string }).certificate_id;
    return (await (await get(`/v1/certificates/${id}`)).json()) as PublicCertificate;
  }

  it('certificates certified and revoked through the review routes are in the log; signatures, inclusion, consistency and a full audit verify', async () => {
    const orders = ['q0', 'q1', 'q2', 'q3', 'q4', 'q5'];
    const revokedOrders = new Set(['q1', 'q4']);
    await keepCheckpoint();
    for (const [i, order] of orders.entries()) {
      const reviewer = i % 2 === 0 ? 'rita' : 'rex';
      const { claimId } = await openOrder(w, reviewer, order);
      const decided = await decide(w, reviewer, order, 'certify', `certified ${order}`, claimId!);
      assert.equal(decided.statusCode, 200, decided.body);
      await eventually(() => publicCertificate(order), (c) => c.transparency_log !== null, `${order} in the log`);
      await keepCheckpoint();
      if (revokedOrders.has(order)) {
        const revoked = await postForm(w, 'rita', `/review/orders/${order}/certificate/revoke`, { reason: `withdrawn ${order}` });
        assert.equal(revoked.statusCode, 303, revoked.body);
        await eventually(() => publicCertificate(order), (c) => c.transparency_log?.revoked != null, `${order}'s revocation in the log`);
        await keepCheckpoint();
      }
    }

    // The key, per C2SP signed-note; its name is the origin (DECISIONS 14).
    const keyText = (await bytes('/log/key')).toString('utf8');
    const key = readVerifierKey(keyText);
    const raw = Buffer.from(keyText.trim().split('+').slice(2).join('+'), 'base64').subarray(1);
    assert.equal(key.name, 'api.certdesk.test/log');

    // 1. Every checkpoint seen: sigstore's verifier and node:crypto's Ed25519 both accept its signature.
    const checkpoints = [...seen.keys()].map((note) => {
      const parsed = sigstoreCheckpoint(note, key, raw);
      const [origin, size, root] = openNote(note, key).split('\n');
      assert.deepEqual([parsed.origin, String(parsed.logSize), parsed.logHash.toString('base64')], [origin, size, root]);
      assert.equal(parsed.origin, key.name);
      return { note, size: Number(parsed.logSize), root: parsed.logHash };
    });
    checkpoints.sort((a, b) => a.size - b.size);
    assert.ok(checkpoints.length >= 4, `several checkpoints seen (${checkpoints.length})`);
    // A checkpoint signed by another key is refused by sigstore's verifier.
    assert.throws(() => sigstoreCheckpoint(checkpoints[0]!.note.replace(/ [A-Za-z0-9+/=]+\n$/, ` ${Buffer.concat([key.keyId, Buffer.alloc(64, 7)]).toString('base64')}\n`), key, raw));

    // 2. Every certificate: its entries are canonical and name it, each proof verifies (sigstore).
    const inLog = new Map<number, string>();
    for (const order of orders) {
      const c = await publicCertificate(order);
      const log = c.transparency_log!;
      assert.equal(log.origin, key.name);
      const events: Array<[LogProof | null, 'certificate.issued' | 'certificate.revoked', string | null]> = [
        [log.issued, 'certificate.issued', c.issued_at],
        [log.revoked, 'certificate.revoked', c.revoked_at],
      ];
      assert.equal(log.revoked !== null, revokedOrders.has(order));
      for (const [proof, type, at] of events) {
        if (!proof) continue;
        const expected = canonicalize({ type, certificate_sha256: createHash('sha256').update(c.jws, 'utf8').digest('hex'), at: new Date(at!).toISOString() });
        assert.equal(proof.entry, expected, `${order} ${type} entry`);
        const checkpoint = sigstoreCheckpoint(proof.checkpoint, key, raw);
        sigstoreInclusion(proof.entry, proof.index, proof.inclusion_proof.map((h) => Buffer.from(h, 'base64')), checkpoint);
        // A proof does not verify for another index or another entry.
        assert.throws(() => sigstoreInclusion(proof.entry, proof.index + 1, proof.inclusion_proof.map((h) => Buffer.from(h, 'base64')), checkpoint));
        assert.throws(() => sigstoreInclusion(proof.entry.replace(type, type === 'certificate.issued' ? 'certificate.revoked' : 'certificate.issued'), proof.index, proof.inclusion_proof.map((h) => Buffer.from(h, 'base64')), checkpoint));
        assert.ok(!inLog.has(proof.index), `entry ${proof.index} is one event`);
        inLog.set(proof.index, proof.entry);
        if (!seen.has(proof.checkpoint)) checkpoints.push({ note: proof.checkpoint, size: Number(checkpoint.logSize), root: checkpoint.logHash });
      }
      if (log.revoked) assert.ok(log.revoked.index > log.issued.index);
    }
    checkpoints.sort((a, b) => a.size - b.size);

    // 3. A full audit of the latest checkpoint from the tiles and bundles (C2SP tlog-tiles).
    const latest = checkpoints[checkpoints.length - 1]!;
    const size = latest.size;
    const entries: Buffer[] = [];
    for (let t = 0; t * 256 < size; t++) {
      const width = Math.min(256, size - t * 256);
      const suffix = width === 256 ? '' : `.p/${width}`;
      const bundle = await bytes(`/log/tile/entries/${tileIndexPath(t)}${suffix}`);
      const before = entries.length;
      for (let at = 0; at < bundle.length; ) {
        const length = bundle.readUInt16BE(at);
        entries.push(bundle.subarray(at + 2, at + 2 + length));
        at += 2 + length;
      }
      assert.equal(entries.length - before, width, `bundle ${t} holds ${width} entries`);
    }
    const leaves = entries.map(leafHash);
    let level = leaves;
    for (let l = 0; level.length > 0; l++) {
      for (let t = 0; t * 256 < level.length; t++) {
        const group = level.slice(t * 256, t * 256 + 256);
        const tile = await bytes(`/log/tile/${l}/${tileIndexPath(t)}${group.length === 256 ? '' : `.p/${group.length}`}`);
        assert.ok(tile.equals(Buffer.concat(group)), `tile ${l}/${t} is the hashes recomputed from the entries`);
      }
      const next: Buffer[] = [];
      for (let i = 0; (i + 1) * 256 <= level.length; i++) next.push(mth(level.slice(i * 256, (i + 1) * 256)));
      level = next;
    }
    assert.ok(mth(leaves).equals(latest.root), "the entries hash to the latest checkpoint's root");
    for (const [index, text] of inLog) assert.equal(entries[index]!.toString('utf8'), text, `entry ${index} in its bundle`);
    const issued = new Set<string>();
    for (const [index, entry] of entries.entries()) {
      const parsed = JSON.parse(entry.toString('utf8')) as { type: string; certificate_sha256: string; at: string };
      assert.equal(entry.toString('utf8'), canonicalize(parsed), `entry ${index} is canonical JSON (RFC 8785)`);
      assert.deepEqual(Object.keys(parsed), ['at', 'certificate_sha256', 'type']);
      if (parsed.type === 'certificate.issued') issued.add(parsed.certificate_sha256);
      else assert.ok(issued.has(parsed.certificate_sha256), `entry ${index} revokes a certificate issued before it`);
    }
    // Missing tiles and bundles are 404, malformed paths too.
    for (const url of [`/log/tile/entries/${tileIndexPath(Math.ceil(size / 256) + 1)}`, '/log/tile/0/1', '/log/tile/0/000.p/0', '/log/tile/x/000']) {
      assert.equal((await get(url)).status, 404, url);
    }

    // 4. Consistency between every pair of checkpoints seen, from the audited leaves.
    let pairs = 0;
    for (const [i, older] of checkpoints.entries()) {
      assert.ok(mth(leaves.slice(0, older.size)).equals(older.root), `checkpoint of size ${older.size} is a prefix of the audited log`);
      for (const newer of checkpoints.slice(i + 1)) {
        // RFC 6962's PROOF is defined for 0 < m < n; from the empty tree the proof is empty.
        const proof = older.size === 0 ? [] : subproof(older.size, leaves.slice(0, newer.size), true);
        assert.ok(verifyConsistency(older.size, newer.size, older.root, newer.root, proof), `${older.size} -> ${newer.size}`);
        pairs++;
      }
    }
    assert.ok(pairs >= 6);

    // 5. The project's own tools agree: certdesk-client against the same service.
    const env = { PATH: process.env.PATH ?? '', CERTDESK_BASE_URL: base, CERTDESK_CLIENT_ID: CLIENT.id, CERTDESK_CLIENT_SECRET: CLIENT.secret, CERTDESK_CONFIG_DIR: dir };
    const asset = path.join(dir, 'asset.png');
    writeFileSync(asset, Buffer.from(TINY_PNG_BASE64, 'base64'));
    const verified = await run(['certificate', 'q0', '--verify', asset, '--log-key', keyText.trim()], env);
    assert.equal(verified.code, 0, verified.stderr);
    const q0 = await publicCertificate('q0');
    assert.match(verified.stderr, new RegExp(`in the transparency log api\\.certdesk\\.test/log at entry ${q0.transparency_log!.issued.index} \\(0-based\\)`));
    const otherKey = await run(['certificate', 'q0', '--verify', asset, '--log-key', GO_VKEY], env);
    assert.equal(otherKey.code, 9);
    assert.match(otherKey.stderr, /^certdesk-client: the certificate names the log api\.certdesk\.test\/log, not PeterNeumann\n$/);
    const revoked = await run(['certificate', 'q1', '--verify', asset], env);
    assert.equal(revoked.code, 9);
    assert.match(revoked.stderr, /^certdesk-client: the certificate was revoked: withdrawn q1\n$/);
    const current = await run(['log', 'checkpoint', '--log-key', keyText.trim()], env);
    assert.equal(current.code, 0, current.stderr);
    for (const [i, { note }] of checkpoints.entries()) {
      const file = path.join(dir, `checkpoint-${i}.txt`);
      writeFileSync(file, note);
      const checked = await run(['log', 'consistency', file, '--log-key', keyText.trim()], env);
      assert.equal(checked.code, 0, checked.stderr);
    }
    const audit = await run(['log', 'audit', '--json'], env);
    assert.equal(audit.code, 0, audit.stderr);
    assert.ok((JSON.parse(audit.stdout) as { entries: number }).entries >= size);
    // And the library: verifyCertificate with only the base URL (key from /log/key, proof from the public route).
    const jwks = (await (await get('/.well-known/jwks.json')).json()) as Parameters<typeof verifyCertificate>[1];
    const q1 = await publicCertificate('q1');
    const byLibrary = await verifyCertificate(q1.jws, jwks, { baseUrl: base });
    assert.equal(byLibrary.transparencyLog?.status, 'included');
    if (byLibrary.transparencyLog?.status === 'included') {
      assert.equal(byLibrary.transparencyLog.issued.index, q1.transparency_log!.issued.index);
      assert.equal(byLibrary.transparencyLog.revoked?.index, q1.transparency_log!.revoked!.index);
    }
    await assert.rejects(verifyCertificate(q1.jws, jwks, { baseUrl: base, logKey: GO_VKEY }), /the certificate names the log api\.certdesk\.test\/log, not PeterNeumann/);
  });
});

function run(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += String(c)));
    child.stderr.on('data', (c) => (stderr += String(c)));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}
