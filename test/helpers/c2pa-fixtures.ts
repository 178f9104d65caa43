/**
 * Content Credentials made in tests with the reference implementation (@contentauth/c2pa-wasm, c2pa-rs
 * compiled to WebAssembly): a throw-away root and a leaf with the C2PA signing profile (openssl), and a
 * signer that builds the COSE_Sign1 the library asks for (its WasmSigner hands the claim bytes to the
 * callback and expects the whole COSE structure back, padded to the reserved size).
 *
 * Used to make files that carry someone else's Content Credentials, and, until the service makes
 * credentialed files itself, files carrying an `org.certdesk.certificate` assertion.
 */
import { createPrivateKey, sign as signBytes, X509Certificate, type KeyObject } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { initSync, WasmBuilder } from '@contentauth/c2pa-wasm';

let ready = false;
/** Loads the library's WebAssembly once per process (synchronously: it is a local file). */
export function initC2pa(): void {
  if (ready) return;
  const file = createRequire(import.meta.url).resolve('@contentauth/c2pa-wasm/c2pa.wasm');
  initSync({ module: fs.readFileSync(file) });
  ready = true;
}

export interface TestSigningChain {
  /** PEM of the root (a trust anchor). */
  rootPem: string;
  /** DER of the leaf, then of the root. */
  chainDer: Buffer[];
  key: KeyObject;
}

const EXTENSIONS = `[root]
basicConstraints=critical,CA:TRUE
keyUsage=critical,keyCertSign,cRLSign
subjectKeyIdentifier=hash
[leaf]
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=emailProtection,1.3.6.1.4.1.62558.2.1
subjectKeyIdentifier=hash
authorityKeyIdentifier=keyid
`;

/** A root and a leaf (P-256, the C2PA signing profile) named `organization`, made by openssl. */
export function makeSigningChain(organization: string): TestSigningChain {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'c2pa-chain-'));
  try {
    const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    fs.writeFileSync(path.join(dir, 'ext.cnf'), EXTENSIONS);
    fs.writeFileSync(path.join(dir, 'req.cnf'), `[req]\ndistinguished_name=dn\n[dn]\n${EXTENSIONS}`);
    run('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', 'root.key');
    run('req', '-x509', '-new', '-config', 'req.cnf', '-key', 'root.key', '-subj', `/CN=${organization} Root/O=${organization}`, '-days', '3650', '-sha256', '-extensions', 'root', '-out', 'root.pem');
    run('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', 'leaf.key');
    run('req', '-new', '-config', 'req.cnf', '-key', 'leaf.key', '-subj', `/CN=${organization} Signer/O=${organization}`, '-out', 'leaf.csr');
    run('x509', '-req', '-in', 'leaf.csr', '-CA', 'root.pem', '-CAkey', 'root.key', '-CAcreateserial', '-days', '365', '-sha256', '-extfile', 'ext.cnf', '-extensions', 'leaf', '-out', 'leaf.pem');
    const rootPem = fs.readFileSync(path.join(dir, 'root.pem'), 'utf8');
    const leaf = new X509Certificate(fs.readFileSync(path.join(dir, 'leaf.pem')));
    const root = new X509Certificate(rootPem);
    return { rootPem, chainDer: [leaf.raw, root.raw], key: createPrivateKey(fs.readFileSync(path.join(dir, 'leaf.key'))) };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// A CBOR encoder of the few types COSE needs (RFC 8949, definite lengths).
type Cbor = number | string | Uint8Array | null | Cbor[] | Map<number | string, Cbor> | { tag: number; value: Cbor };

function head(major: number, n: number): Buffer {
  if (n < 24) return Buffer.from([(major << 5) | n]);
  if (n < 0x100) return Buffer.from([(major << 5) | 24, n]);
  if (n < 0x10000) return Buffer.from([(major << 5) | 25, n >> 8, n & 0xff]);
  const b = Buffer.alloc(5);
  b[0] = (major << 5) | 26;
  b.writeUInt32BE(n, 1);
  return b;
}

function cbor(value: Cbor): Buffer {
  if (value === null) return Buffer.from([0xf6]);
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string') {
    const text = Buffer.from(value, 'utf8');
    return Buffer.concat([head(3, text.length), text]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), value]);
  if (Array.isArray(value)) return Buffer.concat([head(4, value.length), ...value.map(cbor)]);
  if (value instanceof Map) return Buffer.concat([head(5, value.size), ...[...value].flatMap(([k, v]) => [cbor(k), cbor(v)])]);
  return Buffer.concat([head(6, value.tag), cbor(value.value)]);
}

const RESERVE_SIZE = 10_000;

/** The library's signer definition: ES256 COSE_Sign1 (x5chain protected, detached payload) padded to its reserve. */
export function coseSigner(chain: TestSigningChain): { alg: string; reserveSize: number; sign: (claim: Uint8Array) => Promise<Uint8Array<ArrayBuffer>> } {
  return {
    alg: 'es256',
    reserveSize: RESERVE_SIZE,
    sign: async (claim) => {
      const protectedHeader = cbor(new Map<number, Cbor>([[1, -7], [33, chain.chainDer.map((d) => new Uint8Array(d))]]));
      const toBeSigned = cbor(['Signature1', protectedHeader, new Uint8Array(0), claim]);
      const signature = signBytes('sha256', toBeSigned, { key: chain.key, dsaEncoding: 'ieee-p1363' });
      const encode = (pad: number) => cbor({ tag: 18, value: [protectedHeader, new Map<string, Cbor>([['pad', new Uint8Array(pad)]]), null, signature] });
      // The reserved box must be filled exactly: grow the padding until it does (its length prefix may grow too).
      let pad = Math.max(0, RESERVE_SIZE - encode(0).length);
      while (encode(pad).length > RESERVE_SIZE) pad--;
      const out = encode(pad);
      if (out.length !== RESERVE_SIZE) throw new Error(`COSE_Sign1 of ${out.length} bytes cannot fill ${RESERVE_SIZE}`);
      return new Uint8Array(out);
    },
  };
}

/**
 * The builder reads its source Blob with FileReaderSync, which only browser workers have. In Node the
 * source is an object with the Blob methods the library calls (size, slice) and a FileReaderSync that
 * reads such objects: enough for a test fixture, never used by the service.
 */
class BytesBlob {
  constructor(readonly bytes: Uint8Array) {}
  get size(): number {
    return this.bytes.length;
  }
  slice(start = 0, end = this.bytes.length): BytesBlob {
    return new BytesBlob(this.bytes.subarray(start, end));
  }
}

function bytesAsBlob(bytes: Uint8Array): Blob {
  const g = globalThis as { FileReaderSync?: unknown };
  g.FileReaderSync ??= class {
    readAsArrayBuffer(blob: BytesBlob): ArrayBuffer {
      return new Uint8Array(blob.bytes).buffer as ArrayBuffer; // a copy: a pooled Buffer's .buffer is the whole pool
    }
  };
  return new BytesBlob(bytes) as unknown as Blob;
}

export interface ManifestOptions {
  chain: TestSigningChain;
  claimGenerator: string;
  /** Extra assertions: label → JSON data. */
  assertions?: Record<string, unknown>;
  title?: string;
}

/** `bytes` (of `format`, e.g. image/png) with an embedded manifest: the input as parentOf ingredient, `c2pa.opened`, the assertions. */
export async function signAsset(bytes: Uint8Array, format: string, options: ManifestOptions): Promise<Buffer> {
  initC2pa();
  const definition = {
    claim_generator_info: [{ name: options.claimGenerator, version: '1.0' }],
    title: options.title ?? 'asset',
    format,
    assertions: Object.entries(options.assertions ?? {}).map(([label, data]) => ({ label, data })),
  };
  const builder = WasmBuilder.fromJson(JSON.stringify(definition));
  try {
    builder.setIntent('edit');
    const signed = await builder.sign(coseSigner(options.chain), [], format, bytesAsBlob(bytes));
    return Buffer.from(signed);
  } finally {
    builder.free();
  }
}
