/**
 * The code a Content Credentials thread runs (credential-pool.ts starts it with piscina): it reads the
 * uploaded file (and any manifest it carries, which may be hostile), builds the manifest and embeds it in a
 * copy of the bytes. The claim is signed by the pool's side: this thread sends the claim over the task's
 * MessagePort and receives the finished COSE signature; it never holds a key.
 *
 * Two writers: a plain JPEG or PNG (no manifest store in it) gets a data-hashed manifest from c2pa-ts
 * (data-hashed-manifest.ts: the file stays in JavaScript memory, a few MB beside its copy); anything else
 * (a file with Content Credentials, kept as its ingredient's; WebP, TIFF) goes to c2pa-rs, compiled to
 * WebAssembly, whose memory grows to about five times the file and never shrinks.
 *
 * c2pa-rs reads Blobs with the browser's synchronous FileReaderSync, which Node lacks. This thread hands it
 * `BytesBlob`s (a Blob over bytes it already holds) and a FileReaderSync that reads those alone.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { MessagePort } from 'node:worker_threads';
import { initSync, WasmBuilder } from '@contentauth/c2pa-wasm';
import { move } from 'piscina';
import { loadC2paTs } from './c2pa-ts-library.js';
import { credentialPlainFile, DATA_HASHED_MEDIA_TYPES, NotPlainFile } from './data-hashed-manifest.js';

export interface CredentialRequest {
  /** Only start the library and answer (the pool's health check after a thread died). */
  probe?: boolean;
  bytes: Uint8Array;
  mediaType: string;
  /** manifest.ts's definition and parent ingredient, as JSON. */
  definition: string;
  ingredient: string;
  /**
   * Whether the file carries a manifest store: only then is the ingredient read from the bytes (to keep
   * that store as the ingredient's). Reading an ingredient holds about four times the file in the
   * WebAssembly memory, which a file without Content Credentials does not need.
   */
  hasManifest: boolean;
  reserveSize: number;
  /** Where the claim goes to be signed; answers `{ cose }` or `{ error }`. */
  signer: MessagePort;
}

/**
 * The credentialed bytes (transferred back, not copied: the thread keeps no reference), `true` for a
 * probe, or why not.
 */
export type CredentialAnswer = Uint8Array | true | { ok: false; failure: 'unsupported' | 'signing' | 'internal'; message: string };

const kBytes = Symbol('bytes');

/** A Blob over bytes this thread holds: sliced without copying, read by the FileReaderSync below. */
class BytesBlob extends Blob {
  readonly [kBytes]: Uint8Array;
  constructor(bytes: Uint8Array) {
    super([]);
    this[kBytes] = bytes;
  }
  override get size(): number {
    return this[kBytes].byteLength;
  }
  override slice(start = 0, end = this[kBytes].byteLength): Blob {
    return new BytesBlob(this[kBytes].subarray(start, end));
  }
}

class BytesFileReaderSync {
  readAsArrayBuffer(blob: Blob): ArrayBuffer {
    const bytes = (blob as Partial<BytesBlob>)[kBytes];
    if (!bytes) throw new TypeError('only BytesBlob can be read in this thread');
    // c2pa-rs reads a file of up to 50 MB whole and copies it into its own memory at once: hand it the
    // buffer itself rather than a 20 MB copy of it (it only reads it).
    if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer) return bytes.buffer;
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }
}

let ready = false;

function initialise(): void {
  if (ready) return;
  (globalThis as { FileReaderSync?: unknown }).FileReaderSync = BytesFileReaderSync;
  const wasmPath = createRequire(import.meta.url).resolve('@contentauth/c2pa-wasm/c2pa.wasm');
  initSync({ module: readFileSync(wasmPath) });
  ready = true;
}

class SigningFailed extends Error {}

function signOverPort(port: MessagePort, claim: Uint8Array): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    port.once('message', (answer: { cose?: Uint8Array; error?: string }) => {
      if (answer.cose) resolve(new Uint8Array(answer.cose));
      else reject(new SigningFailed(answer.error ?? 'the signer gave no signature'));
    });
    port.postMessage({ claim });
  });
}

/**
 * After a trap (stack overflow, out of bounds) the WebAssembly instance cannot be trusted again: the thread
 * answers, then ends, and the pool starts a fresh one for the next file.
 */
function endThreadSoon(): void {
  setTimeout(() => process.exit(0), 50).unref();
}

const cannotStart = (err: unknown): CredentialAnswer => ({ ok: false, failure: 'internal', message: `the C2PA library could not start: ${(err as Error).message}` });

export default async function credential(request: CredentialRequest): Promise<CredentialAnswer> {
  // c2pa-rs's WebAssembly is compiled only for a file it writes: a thread that sees plain files never holds it.
  const plain = !request.probe && !request.hasManifest && DATA_HASHED_MEDIA_TYPES.includes(request.mediaType);
  try {
    if (request.probe || plain) await loadC2paTs();
    if (request.probe || !plain) initialise();
    if (request.probe) return true;
  } catch (err) {
    return cannotStart(err);
  }
  let builder: WasmBuilder | null = null;
  let signingError: string | null = null;
  const signClaim = async (claim: Uint8Array): Promise<Uint8Array> => {
    try {
      return await signOverPort(request.signer, claim);
    } catch (err) {
      signingError = (err as Error).message;
      throw err;
    }
  };
  try {
    if (plain) {
      try {
        const credentialed = await credentialPlainFile({
          bytes: request.bytes,
          mediaType: request.mediaType,
          definition: JSON.parse(request.definition),
          ingredient: JSON.parse(request.ingredient),
          signatureSize: request.reserveSize,
          signClaim,
        });
        return move(credentialed) as Uint8Array;
      } catch (err) {
        if (!(err instanceof NotPlainFile)) throw err;
        // c2pa-ts found a manifest store the pool's look did not: c2pa-rs keeps it as the ingredient's.
        request.hasManifest = true;
      }
      try {
        initialise();
      } catch (err) {
        return cannotStart(err);
      }
    }
    builder = WasmBuilder.fromJson(request.definition);
    if (request.hasManifest) await builder.addIngredientFromBlob(request.ingredient, request.mediaType, new BytesBlob(request.bytes));
    else builder.addIngredient(request.ingredient);
    const signed = await builder.sign(
      {
        alg: 'es256',
        reserveSize: request.reserveSize,
        // The whole COSE structure comes back from the signer (c2pa-rs's direct COSE handling).
        directCoseHandling: true,
        sign: async (claim: Uint8Array) => (await signClaim(claim)) as Uint8Array<ArrayBuffer>,
      } as Parameters<WasmBuilder['sign']>[0],
      [],
      request.mediaType,
      new BytesBlob(request.bytes),
    );
    return move(signed) as Uint8Array;
  } catch (err) {
    if (signingError !== null) return { ok: false, failure: 'signing', message: signingError };
    if (err instanceof WebAssembly.RuntimeError) endThreadSoon();
    return { ok: false, failure: 'unsupported', message: err instanceof Error ? err.message : String(err) };
  } finally {
    try {
      builder?.free();
    } catch {
      // freeing after a trap may fail too: the thread ends anyway
    }
    request.signer?.close();
  }
}
