/**
 * Content Credentials off the job's thread: a pool of worker threads (piscina) with V8 `resourceLimits`,
 * like the analysis decoders (domain/analysis/decoding/decoder-pool.ts), where the uploaded file and any
 * manifest it already carries are read (c2pa-ts for a plain JPEG or PNG, c2pa-rs for the rest:
 * credential-thread.ts). A hostile manifest that exhausts or crashes its thread costs that
 * thread, never the API or the job; the thread holds no key (the claim is signed here, over a MessagePort).
 *
 * What the pool does not bound: WebAssembly memory (and the ArrayBuffers holding the file and its copy)
 * lives outside V8's heap limit. It is bounded by what
 * reaches the thread: the asset (MAX_UPLOAD_BYTES) and an embedded manifest store of at most
 * ANALYSIS_MAX_METADATA_BYTES (checked from the container's lengths before the file is sent).
 *
 * Whose fault a dead thread is: after the crash a fresh thread starts the library (`probe`). If it starts,
 * the file killed its thread (`unsupported`); if not, the pool is broken and the job is retried later.
 */
import { fileURLToPath } from 'node:url';
import { MessageChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { findC2paStore } from '../analysis/metadata/c2pa.js';
import type { CredentialAnswer, CredentialRequest } from './credential-thread.js';
import { coseReserveSize, coseSign1 } from './cose-sign1.js';
import type { C2paSigner } from './signing-chain.js';

export interface CredentialPoolOptions {
  threads: number;
  /** V8 old-generation heap of each thread, in MB. */
  heapMb: number;
  onThreadCrash?: (err: unknown, blamed: 'file' | 'pool') => void;
}

/** What making the copy came to: the bytes, or why not (the file's fault, or a transient one). */
export type CredentialOutcome =
  | { kind: 'made'; bytes: Buffer }
  | { kind: 'unsupported'; reason: string }
  | { kind: 'retry'; reason: string };

function threadFilename(): string {
  return fileURLToPath(import.meta.url).replace(/credential-pool\.(ts|js)$/, 'credential-thread.$1');
}

export class CredentialPool {
  private readonly pool: Piscina<CredentialRequest, CredentialAnswer>;
  private closing = false;

  constructor(private readonly options: CredentialPoolOptions) {
    this.pool = new Piscina({
      filename: threadFilename(),
      minThreads: 0,
      maxThreads: options.threads,
      idleTimeout: 60_000,
      concurrentTasksPerWorker: 1,
      resourceLimits: { maxOldGenerationSizeMb: options.heapMb, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 },
    });
  }

  /**
   * The copy of `bytes` with the manifest embedded, signed by `signer`. With `giveBytes` the caller hands
   * its buffer over (it is moved to the thread, not copied, and unusable afterwards): a 20 MB asset then
   * costs one copy less.
   */
  async credential(
    input: { bytes: Uint8Array; mediaType: string; definition: Record<string, unknown>; ingredient: Record<string, unknown>; giveBytes?: boolean },
    signer: C2paSigner,
    signal?: AbortSignal,
  ): Promise<CredentialOutcome> {
    const reserveSize = coseReserveSize(signer.chainDer);
    const channel = new MessageChannel();
    channel.port1.on('message', (message: { claim: Uint8Array }) => {
      try {
        const cose = coseSign1(new Uint8Array(message.claim), signer.chainDer, (tbs) => signer.sign(tbs), reserveSize);
        channel.port1.postMessage({ cose });
      } catch (err) {
        channel.port1.postMessage({ error: `signing failed: ${(err as Error).message}` });
      }
    });
    // Only a buffer that is wholly this file's can move (a small Buffer may share Node's pool with others).
    const owned = input.giveBytes && input.bytes.byteOffset === 0 && input.bytes.byteLength === input.bytes.buffer.byteLength && input.bytes.buffer instanceof ArrayBuffer;
    const request: CredentialRequest = {
      bytes: input.bytes,
      mediaType: input.mediaType,
      definition: JSON.stringify(input.definition),
      ingredient: JSON.stringify(input.ingredient),
      hasManifest: findC2paStore(Buffer.from(input.bytes.buffer, input.bytes.byteOffset, input.bytes.byteLength)) !== null,
      reserveSize,
      signer: channel.port2,
    };
    let answer: CredentialAnswer;
    try {
      answer = await this.pool.run(request, { transferList: owned ? [channel.port2, input.bytes.buffer as ArrayBuffer] : [channel.port2], ...(signal ? { signal } : {}) });
    } catch (err) {
      if (signal?.aborted || this.closing) throw err;
      return this.blame(err);
    } finally {
      channel.port1.close();
    }
    if (answer instanceof Uint8Array) return { kind: 'made', bytes: Buffer.from(answer.buffer, answer.byteOffset, answer.byteLength) };
    if (answer === true) return { kind: 'retry', reason: 'the thread answered a probe' };
    if (answer.failure === 'unsupported') return { kind: 'unsupported', reason: answer.message };
    return { kind: 'retry', reason: answer.message };
  }

  get threads(): number {
    return this.pool.threads.length;
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.pool.close({ force: true });
  }

  private async blame(crash: unknown): Promise<CredentialOutcome> {
    const what = crash instanceof Error ? `${(crash as NodeJS.ErrnoException).code ?? crash.name}: ${crash.message}` : String(crash);
    let healthy = false;
    try {
      healthy = (await this.pool.run({ probe: true } as CredentialRequest)) === true;
    } catch {
      healthy = false;
    }
    this.options.onThreadCrash?.(crash, healthy ? 'file' : 'pool');
    return healthy ? { kind: 'unsupported', reason: `the file crashed its Content Credentials thread (${what})` } : { kind: 'retry', reason: `Content Credentials threads are failing (${what})` };
  }
}
