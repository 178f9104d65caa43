/**
 * The data-hashed manifest c2pa-ts writes into a plain JPEG or PNG (data-hashed-manifest.ts), judged by
 * c2pa-rs (the reference implementation, as test/helpers/content-credentials.ts reads files):
 * - whatever segments or chunks the file has and whatever the manifest's size (one APP11 segment or
 *   several), the result validates as Trusted with the manifest of manifest.ts, and the file without the
 *   manifest's segments (the data hash's exclusion) is the upload byte for byte;
 * - a file that already carries a manifest store, or another format, is left to c2pa-rs (NotPlainFile);
 * - a malformed file is refused with an error, never a hang.
 */
import assert from 'node:assert/strict';
import { describe, it, before } from 'node:test';
import fc from 'fast-check';
import sharp from 'sharp';
import { readManifestStore } from '../../../test/helpers/content-credentials.js';
import { pngChunk } from '../../demo/png.js';
import { coseReserveSize, coseSign1 } from './cose-sign1.js';
import { credentialPlainFile, NotPlainFile, type DefinitionJson } from './data-hashed-manifest.js';
import { manifestDefinition, parentIngredient } from './manifest.js';
import { generateSigningChain, signerFromPem, type C2paSigner } from './signing-chain.js';

let signer: C2paSigner;
let rootPem: string;
let baseJpegs: Buffer[];
let basePng: Buffer;

before(async () => {
  const chain = await generateSigningChain('data-hashed.example');
  signer = signerFromPem(chain.chainPem, chain.keyPem);
  rootPem = chain.rootPem;
  const image = () => sharp({ create: { width: 40, height: 30, channels: 3, background: '#3a6' } });
  const jfif = await image().jpeg().toBuffer();
  const exif = await image().withExif({ IFD0: { Copyright: 'test' } }).jpeg().toBuffer();
  baseJpegs = [jfif, exif, withoutApp0(jfif)];
  basePng = await image().png().toBuffer();
});

function definition(mediaType: string, jwsLength: number): DefinitionJson {
  return manifestDefinition({
    title: 'upload',
    mediaType,
    generatorVersion: '9.9.9',
    certificate: {
      certificate_id: 'c-1',
      issuer: 'https://certdesk.example',
      verify_url: 'https://certdesk.example/verify/c-1',
      status_url: 'https://certdesk.example/v1/certificates/c-1',
      asset_sha256: '0'.repeat(64),
      jws: 'j'.repeat(jwsLength),
    },
  }) as unknown as DefinitionJson;
}

function credential(bytes: Uint8Array, mediaType: string, jwsLength = 900): Promise<Uint8Array> {
  const size = coseReserveSize(signer.chainDer);
  return credentialPlainFile({
    bytes: new Uint8Array(bytes),
    mediaType,
    definition: definition(mediaType, jwsLength),
    ingredient: parentIngredient('upload', mediaType) as never,
    signatureSize: size,
    signClaim: async (claim) => coseSign1(claim, signer.chainDer, (tbs) => signer.sign(tbs), size),
  });
}

// --- JPEG segments ------------------------------------------------------------------------------

interface Segment {
  marker: number;
  start: number;
  end: number;
}

/** The marker segments before the scan (SOI excluded), and where the scan starts. */
function jpegSegments(bytes: Uint8Array): { segments: Segment[]; scan: number } {
  const segments: Segment[] = [];
  let pos = 2;
  for (;;) {
    assert.equal(bytes[pos], 0xff, `a marker at ${pos}`);
    const marker = bytes[pos + 1]!;
    if (marker === 0xda) return { segments, scan: pos };
    const end = pos + 2 + ((bytes[pos + 2]! << 8) | bytes[pos + 3]!);
    segments.push({ marker, start: pos, end });
    pos = end;
  }
}

function withoutApp0(jpeg: Buffer): Buffer {
  const app0 = jpegSegments(jpeg).segments.find((s) => s.marker === 0xe0);
  return app0 ? Buffer.concat([jpeg.subarray(0, app0.start), jpeg.subarray(app0.end)]) : jpeg;
}

function appSegment(marker: number, payload: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from([0xff, marker, (payload.length + 2) >> 8, (payload.length + 2) & 0xff]), payload]);
}

/** `jpeg` with `extra` segments inserted after the segment at `after` (0: right after SOI). */
function insertSegments(jpeg: Buffer, after: number, extra: Buffer[]): Buffer {
  const { segments } = jpegSegments(jpeg);
  const at = after === 0 ? 2 : segments[Math.min(after, segments.length) - 1]!.end;
  return Buffer.concat([jpeg.subarray(0, at), ...extra, jpeg.subarray(at)]);
}

/** The JPEG without its C2PA APP11 segments (JPEG XT, common identifier "JP"). */
function withoutC2paSegments(jpeg: Uint8Array): { rest: Buffer; count: number } {
  const { segments } = jpegSegments(jpeg);
  const c2pa = segments.filter((s) => s.marker === 0xeb && jpeg[s.start + 4] === 0x4a && jpeg[s.start + 5] === 0x50);
  const bytes = Buffer.from(jpeg);
  const parts: Buffer[] = [];
  let pos = 0;
  for (const s of c2pa) {
    parts.push(bytes.subarray(pos, s.start));
    pos = s.end;
  }
  parts.push(bytes.subarray(pos));
  // The manifest's segments are contiguous (C2PA: written in order, one immediately after the other).
  c2pa.forEach((s, i) => i > 0 && assert.equal(s.start, c2pa[i - 1]!.end, 'contiguous APP11 segments'));
  return { rest: Buffer.concat(parts), count: c2pa.length };
}

// --- PNG chunks ---------------------------------------------------------------------------------

function pngChunks(png: Uint8Array): Array<{ type: string; start: number; end: number }> {
  const buf = Buffer.from(png.buffer, png.byteOffset, png.byteLength);
  const chunks = [];
  for (let pos = 8; pos < buf.length; ) {
    const end = pos + 12 + buf.readUInt32BE(pos);
    chunks.push({ type: buf.toString('latin1', pos + 4, pos + 8), start: pos, end });
    pos = end;
  }
  return chunks;
}

/** `png` with `extra` chunks inserted after its first `after` chunks (at least IHDR). */
function insertChunks(png: Buffer, after: number, extra: Buffer[]): Buffer {
  const chunks = pngChunks(png);
  const firstIdat = chunks.findIndex((c) => c.type === 'IDAT');
  const at = chunks[Math.max(0, Math.min(after, firstIdat) - 1)]!.end;
  return Buffer.concat([png.subarray(0, at), ...extra, png.subarray(at)]);
}

// --- the properties -----------------------------------------------------------------------------

async function assertTrusted(file: Uint8Array, mediaType: string, jwsLength: number): Promise<void> {
  const store = await readManifestStore(file, mediaType, rootPem);
  assert.equal(store.validation_state, 'Trusted', JSON.stringify(store.validation_results?.activeManifest?.failure));
  const manifest = store.manifests[store.active_manifest]!;
  assert.equal(manifest.claim_generator_info?.[0]?.name, 'certdesk');
  assert.equal(manifest.title, 'upload');
  assert.equal(manifest.ingredients.length, 1);
  assert.equal(manifest.ingredients[0]!.relationship, 'parentOf');
  const actions = manifest.assertions.find((a) => a.label === 'c2pa.actions.v2')?.data.actions as Array<{ action: string; description?: string; parameters?: { ingredients?: Array<{ url: string }> } }>;
  assert.equal(actions.length, 1);
  assert.equal(actions[0]!.action, 'c2pa.opened');
  assert.match(actions[0]!.description ?? '', /Certified human-made/);
  assert.match(actions[0]!.parameters?.ingredients?.[0]?.url ?? '', /c2pa\.ingredient\.v3$/);
  const certificate = manifest.assertions.find((a) => a.label === 'org.certdesk.certificate')?.data;
  assert.equal((certificate?.jws as string | undefined)?.length, jwsLength);
  assert.deepEqual(Object.keys(certificate ?? {}).sort(), ['asset_sha256', 'certificate_id', 'issuer', 'jws', 'status_url', 'verify_url']);
}

describe('data-hashed manifest (c2pa-ts) in a plain file', () => {
  it('JPEG: any segments before the scan, any manifest size: Trusted in c2pa-rs, the upload intact around the APP11 segments', async () => {
    const segment = fc.record({ marker: fc.constantFrom(0xe1, 0xe2, 0xeb, 0xec, 0xed, 0xee, 0xfe), size: fc.oneof(fc.integer({ min: 0, max: 64 }), fc.integer({ min: 65_400, max: 65_533 })) });
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 2 }),
        fc.array(segment, { maxLength: 3 }),
        fc.integer({ min: 0, max: 3 }),
        fc.oneof(fc.integer({ min: 0, max: 2_000 }), fc.integer({ min: 60_000, max: 70_000 }), fc.integer({ min: 130_000, max: 200_000 })),
        async (base, extra, after, jwsLength) => {
          // A non-C2PA APP11 (not "JP") is kept as it is, like any other segment.
          const upload = insertSegments(baseJpegs[base]!, after, extra.map(({ marker, size }) => appSegment(marker, new Uint8Array(size).fill(0x20))));
          const file = await credential(upload, 'image/jpeg', jwsLength);
          const { rest, count } = withoutC2paSegments(file);
          assert.ok(count >= 1, 'the manifest in APP11 segments');
          if (jwsLength > 65_536) assert.ok(count >= 2, `a manifest above 64 kB spans segments (${count})`);
          assert.ok(rest.equals(upload), 'the upload, byte for byte, once the manifest is taken out');
          await assertTrusted(file, 'image/jpeg', jwsLength);
        },
      ),
      { numRuns: 20 },
    );
  });

  it('PNG: any ancillary chunks, any manifest size: Trusted in c2pa-rs, one caBX chunk before IDAT, the upload intact around it', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 70_000 }), { maxLength: 3 }),
        fc.integer({ min: 1, max: 3 }),
        fc.oneof(fc.integer({ min: 0, max: 2_000 }), fc.integer({ min: 60_000, max: 200_000 })),
        async (textSizes, after, jwsLength) => {
          const upload = insertChunks(basePng, after, textSizes.map((n) => pngChunk('tEXt', Buffer.concat([Buffer.from('Comment\0'), Buffer.alloc(n, 0x61)]))));
          const file = await credential(upload, 'image/png', jwsLength);
          const chunks = pngChunks(file);
          const manifest = chunks.filter((c) => c.type === 'caBX');
          assert.equal(manifest.length, 1);
          assert.ok(manifest[0]!.start < chunks.find((c) => c.type === 'IDAT')!.start, 'before the image data');
          const rest = Buffer.concat([Buffer.from(file.subarray(0, manifest[0]!.start)), Buffer.from(file.subarray(manifest[0]!.end))]);
          assert.ok(rest.equals(upload), 'the upload, byte for byte, once the manifest is taken out');
          await assertTrusted(file, 'image/png', jwsLength);
        },
      ),
      { numRuns: 15 },
    );
  });

  it('a flipped byte of image data breaks the data hash', async () => {
    for (const [upload, type] of [[baseJpegs[0]!, 'image/jpeg'], [basePng, 'image/png']] as const) {
      const file = Buffer.from(await credential(upload, type));
      // In the scan (JPEG), or in the IDAT chunk's data (PNG).
      const at = type === 'image/png' ? pngChunks(file).find((c) => c.type === 'IDAT')!.start + 10 : file.length - 8;
      file[at]! ^= 0x01;
      const store = await readManifestStore(file, type, rootPem);
      assert.equal(store.validation_state, 'Invalid', type);
      assert.ok(store.validation_results?.activeManifest?.failure.some((f) => f.code === 'assertion.dataHash.mismatch'), type);
    }
  });

  it('leaves a file with a manifest store, and other formats, to c2pa-rs', async () => {
    const credentialed = await credential(baseJpegs[0]!, 'image/jpeg');
    await assert.rejects(credential(credentialed, 'image/jpeg'), NotPlainFile);
    await assert.rejects(credential(await credential(basePng, 'image/png'), 'image/png'), NotPlainFile);
    await assert.rejects(credential(await sharp(basePng).webp().toBuffer(), 'image/webp'), NotPlainFile);
  });

  it('refuses a definition with a part it does not write (the two writers must mean the same)', async () => {
    const size = coseReserveSize(signer.chainDer);
    const input = (extra: Record<string, unknown>) => ({
      bytes: new Uint8Array(basePng),
      mediaType: 'image/png',
      definition: { ...definition('image/png', 10), ...extra },
      ingredient: parentIngredient('upload', 'image/png') as never,
      signatureSize: size,
      signClaim: async (claim: Uint8Array) => coseSign1(claim, signer.chainDer, (tbs) => signer.sign(tbs), size),
    });
    await assert.rejects(credentialPlainFile(input({ thumbnail: { format: 'image/jpeg', identifier: 't.jpg' } })), /thumbnail is not written/);
    await assert.rejects(credentialPlainFile(input({ ingredients: [{ title: 'another' }] })), /ingredients is not written/);
    assert.ok((await credentialPlainFile(input({ ingredients: [] }))).length > basePng.length);
  });

  it('refuses a malformed file with an error, whatever is cut or flipped in its header', async () => {
    await assert.rejects(credential(baseJpegs[0]!.subarray(0, 40), 'image/jpeg'), (err: unknown) => err instanceof Error && !(err instanceof NotPlainFile));
    await assert.rejects(credential(Buffer.from('not an image at all'), 'image/png'), (err: unknown) => err instanceof Error && !(err instanceof NotPlainFile));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('image/jpeg', 'image/png'), fc.integer({ min: 0, max: 200 }), fc.integer({ min: 1, max: 255 }), fc.boolean(), async (type, at, flip, cut) => {
        const upload = Buffer.from(type === 'image/jpeg' ? baseJpegs[0]! : basePng);
        const hostile = cut ? upload.subarray(0, at) : (upload[at % upload.length]! ^= flip, upload);
        // Either an error, or a file c2pa-rs reads: never a hang, never anything else thrown.
        const result = await credential(hostile, type).then(
          (bytes) => bytes,
          (err: unknown) => {
            assert.ok(err instanceof Error, String(err));
            return null;
          },
        );
        if (result) assert.ok(result.length > hostile.length);
      }),
      { numRuns: 60 },
    );
  });
});
