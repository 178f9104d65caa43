import assert from 'node:assert/strict';
import { createPrivateKey, createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import canonicalize from 'canonicalize';
import { certificateEntry, certificateSha256, entryBundle } from './entries.js';
import { EMPTY_ROOT, inclusionProof, leafHash, rootOf, verifyInclusion, type HashSource } from './merkle.js';
import { checkpointText, noteKeyId, openCheckpoint, signNote, verifierKey } from './signed-note.js';
import { encodeTileIndex, parseTilePath, partialTiles, tilePath } from './tile-path.js';
import { openTileBase, TreeView } from './tree-view.js';

const hex = (b: Buffer) => b.toString('hex');
const unhex = (s: string) => Buffer.from(s, 'hex');

// RFC 6962 reference leaves and roots (Certificate Transparency's test data, used as data only).
const CT_LEAVES = ['', '00', '10', '2021', '3031', '40414243', '5051525354555657', '606162636465666768696a6b6c6d6e6f'].map(unhex);
const CT_ROOTS = [
  'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
  'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
  'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
  'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
  '4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4',
  '76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef',
  'ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c',
  '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
];
const CT_INCLUSION = [
  { index: 0, size: 8, proof: ['96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7', '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e', '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4'] },
  { index: 5, size: 8, proof: ['bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b', 'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0', 'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7'] },
];

/** A hash source over every leaf hash (the naive tree the tiled view must agree with). */
function naive(leaves: Buffer[]): HashSource {
  const memo = new Map<string, Buffer>();
  const subtree = (height: number, index: number): Buffer => {
    if (height === 0) return leaves[index]!;
    const key = `${height}/${index}`;
    let hash = memo.get(key);
    if (!hash) memo.set(key, (hash = rootOf([subtree(height - 1, 2 * index), subtree(height - 1, 2 * index + 1)])));
    return hash;
  };
  return { subtree };
}

const leavesOf = (n: number) => Array.from({ length: n }, (_, i) => leafHash(Buffer.from(`entry ${i}`)));

describe('RFC 6962 hashing', () => {
  it('gives the reference roots for sizes 0..8', () => {
    const leaves = CT_LEAVES.map(leafHash);
    assert.equal(hex(EMPTY_ROOT), CT_ROOTS[0]);
    for (let n = 0; n <= 8; n++) assert.equal(hex(rootOf(leaves.slice(0, n))), CT_ROOTS[n], `size ${n}`);
  });

  it('gives the reference audit paths, which verify', () => {
    const leaves = CT_LEAVES.map(leafHash);
    for (const v of CT_INCLUSION) {
      const path = inclusionProof(naive(leaves), v.index, v.size);
      assert.deepEqual(path.map(hex), v.proof);
      assert.ok(verifyInclusion(leaves[v.index]!, v.index, v.size, path, unhex(CT_ROOTS[v.size]!)));
      assert.ok(!verifyInclusion(leaves[v.index]!, v.index + 1, v.size, path, unhex(CT_ROOTS[v.size]!)));
    }
  });
});

describe('tile paths (C2SP tlog-tiles)', () => {
  it('encodes indexes in 3-digit elements, all but the last with x', () => {
    assert.equal(encodeTileIndex(1234067), 'x001/x234/067');
    assert.equal(encodeTileIndex(0), '000');
    assert.equal(encodeTileIndex(1000), 'x001/000');
    assert.equal(tilePath({ level: 0, index: 1234067, width: 256 }), 'tile/0/x001/x234/067');
    assert.equal(tilePath({ level: 'entries', index: 5, width: 17 }), 'tile/entries/005.p/17');
  });

  it('parses exactly what it writes and nothing else', () => {
    for (const tile of [
      { level: 0, index: 0, width: 256 },
      { level: 3, index: 1234067, width: 1 },
      { level: 'entries' as const, index: 999, width: 255 },
      { level: 63, index: 1000, width: 256 },
    ]) {
      assert.deepEqual(parseTilePath(tilePath(tile)), tile);
    }
    for (const bad of ['tile/64/000', 'tile/01/000', 'tile/0/1', 'tile/0/0000', 'tile/0/x000/001', 'tile/0/000.p/0', 'tile/0/000.p/256',
      'tile/0/000.p/012', 'tile/0/000.p', 'tile/0/x001', 'tile/0/001/x002', 'tile/entries', 'tile/0', 'tiles/0/000', 'tile/0/000/', 'tile/-1/000',
      'tile/0/x1/000', 'tile/0/abc', 'tile/0/000.p/1/2']) {
      assert.equal(parseTilePath(bad), null, bad);
    }
  });

  it('lists the partial tiles of a size as the spec describes 70,000', () => {
    assert.deepEqual(partialTiles(70000), [
      { level: 0, index: 273, width: 112 },
      { level: 1, index: 1, width: 17 },
      { level: 2, index: 0, width: 1 },
    ]);
    assert.deepEqual(partialTiles(256), [{ level: 1, index: 0, width: 1 }]);
    assert.deepEqual(partialTiles(0), []);
  });
});

describe('the tiled view of the tree', () => {
  it('agrees with the naive tree on roots, proofs and tiles, whatever size it was loaded at', () => {
    const total = 256 * 256 + 700;
    const leaves = leavesOf(total);
    const full = new TreeView([]);
    const stored = new Map<string, Buffer>();
    for (const leaf of leaves) for (const c of full.append(leaf)) stored.set(`${c.level}/${c.index}`, c.hash);
    assert.equal(hex(full.root()), hex(rootOf(leaves)));
    // The level-1 hash of tile 3 is the root of leaves 768..1023.
    assert.equal(hex(stored.get('1/3')!), hex(rootOf(leaves.slice(768, 1024))));
    assert.equal(hex(stored.get('2/0')!), hex(rootOf(leaves.slice(0, 65536))));
    for (const start of [0, 1, 255, 256, 257, 65535, 65536, 65537, 66000]) {
      // A view loaded at `start` (the open tiles only), then appended to: the integrator's situation.
      const levels = [0, 1, 2].map((level) => {
        const base = openTileBase(start, level);
        const count = Math.floor(start / 256 ** level);
        const hashes = [];
        for (let i = base; i < count; i++) hashes.push(level === 0 ? leaves[i]! : stored.get(`${level}/${i}`)!);
        return { base, hashes };
      });
      const view = new TreeView(levels);
      assert.equal(view.size, start);
      const end = Math.min(total, start + 600);
      for (let i = start; i < end; i++) view.append(leaves[i]!);
      const root = rootOf(leaves.slice(0, end));
      assert.equal(hex(view.root()), hex(root), `root at ${end} from ${start}`);
      const reference = naive(leaves.slice(0, end));
      for (let i = start; i < end; i += 37) {
        const proof = view.proof(i);
        assert.deepEqual(proof.map(hex), inclusionProof(reference, i, end).map(hex));
        assert.ok(verifyInclusion(leaves[i]!, i, end, proof, root));
      }
      for (const tile of partialTiles(end)) {
        if (tile.level === 0) assert.equal(hex(view.tileBytes(0, tile.index, tile.width)), hex(Buffer.concat(leaves.slice(tile.index * 256, tile.index * 256 + tile.width))));
      }
    }
  });
});

describe('signed notes and checkpoints (C2SP signed-note, tlog-checkpoint)', () => {
  // The Go reference implementation's documented example (golang.org/x/mod/sumdb/note), used as data.
  const seed = Buffer.from('AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz', 'base64').subarray(1);
  const privateKey = createPrivateKey({ key: Buffer.concat([unhex('302e020100300506032b657004220420'), seed]), format: 'der', type: 'pkcs8' });
  const publicKey = Buffer.from('ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW', 'base64').subarray(1);
  const text = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n";

  it('reproduces the reference signature, key id and verifier key byte for byte', () => {
    const signer = { name: 'PeterNeumann', publicKey, privateKey };
    assert.equal(hex(noteKeyId('PeterNeumann', publicKey)), 'c74f20a3');
    assert.equal(verifierKey('PeterNeumann', publicKey), 'PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW');
    assert.equal(signNote(text, signer), `${text}\n\u2014 PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n`);
  });

  it('signs checkpoints that open with the verifier key and not with another', () => {
    const signer = { name: 'certdesk.example/log', publicKey, privateKey };
    const root = rootOf(leavesOf(5));
    const note = signNote(checkpointText('certdesk.example/log', 5, root), signer);
    assert.match(note, /^certdesk\.example\/log\n5\n[A-Za-z0-9+/]{43}=\n\n\u2014 certdesk\.example\/log [A-Za-z0-9+/=]+\n$/);
    const opened = openCheckpoint(note, verifierKey('certdesk.example/log', publicKey));
    assert.equal(opened.size, 5);
    assert.ok(opened.root.equals(root));
    assert.throws(() => openCheckpoint(note, verifierKey('other.example/log', publicKey)));
    assert.throws(() => openCheckpoint(note.replace('\n5\n', '\n6\n'), verifierKey('certdesk.example/log', publicKey)));
  });
});

describe('entries (DECISIONS 14)', () => {
  it('are RFC 8785 canonical JSON naming the type, the time and the JWS digest only', () => {
    const jws = 'eyJhbGciOiJFUzI1NiJ9.e30.c2ln';
    const at = new Date('2026-03-04T05:06:07.089Z');
    const entry = certificateEntry('issued', at, jws);
    const digest = createHash('sha256').update(jws).digest('hex');
    assert.equal(entry, `{"at":"2026-03-04T05:06:07.089Z","certificate_sha256":"${digest}","type":"certificate.issued"}`);
    assert.equal(entry, canonicalize(JSON.parse(entry)));
    assert.equal(certificateSha256(jws), digest);
    assert.equal(certificateEntry('revoked', at, jws), entry.replace('certificate.issued', 'certificate.revoked'));
  });

  it('are bundled with big-endian uint16 lengths', () => {
    assert.equal(hex(entryBundle([Buffer.from('a'), Buffer.alloc(0), Buffer.alloc(300, 1)]).subarray(0, 7)), '0001610000012c');
    assert.throws(() => entryBundle([Buffer.alloc(65536)]));
  });
});
