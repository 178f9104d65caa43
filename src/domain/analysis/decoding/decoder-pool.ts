/**
 * Image decoding off the HTTP thread: a pool of worker threads (piscina) with V8 `resourceLimits`, built
 * once per process (src/app/services.ts) and closed on shutdown. A hostile file that exhausts its thread's
 * heap costs that thread (piscina replaces it), never the API.
 *
 * What the pool does not bound: native memory (libvips, pixel ArrayBuffers) is outside V8's limits. That
 * is bounded by the header check (inspect.ts: nothing above the limits is decoded) and by the decoders'
 * own caps (sharp `limitInputPixels`, ag-psd `totalMemoryLimit`), all from the same `ImageLimits`. A native
 * crash (a segfault in libvips) ends the whole process, as it would without the pool; the job's lease then
 * lets another worker claim it.
 *
 * Who is to blame when a thread dies mid-task: after the crash the pool decodes a 1×1 probe image in a
 * fresh thread. If the probe decodes, the pool is healthy and the file killed its thread: the job fails
 * for good (PermanentJobError), with the crash named in its error. If the probe fails too, the pool
 * itself is broken (installation, memory of the machine): a transient error, the job is retried later,
 * and nothing is blamed on the file.
 */
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { PermanentJobError } from '../../background/job-handler.js';
import type { MetadataField } from '../metadata/read-metadata.js';
import type { DecodeAnswer, DecodeRequest } from './decoder-thread.js';
import { undecodable, type DecodeTask, type ImageDecoder, type Renderings } from './image-decoder.js';
import type { ImageLimits } from './image-limits.js';
import { quickVerdict, type Inspection } from './inspect.js';

export interface DecoderPoolOptions {
  limits: ImageLimits;
  /** Threads at most (they start on first use and stop after a minute idle). */
  threads: number;
  /** V8 old-generation heap of each thread, in MB. */
  heapMb: number;
  /** Told when a thread died while decoding (logged by the caller). */
  onThreadCrash?: (err: unknown, blamed: 'file' | 'pool') => void;
}

/** The thread's module beside this one: `.ts` under tsx (tests), `.js` from dist/ (serve). */
function threadFilename(): string {
  const own = fileURLToPath(import.meta.url);
  return own.replace(/decoder-pool\.(ts|js)$/, 'decoder-thread.$1');
}

const asBuffer = (u: Uint8Array): Buffer => Buffer.from(u.buffer, u.byteOffset, u.byteLength);

export class DecoderPool implements ImageDecoder {
  readonly limits: ImageLimits;
  private readonly pool: Piscina<DecodeRequest, DecodeAnswer>;
  private closing = false;

  constructor(private readonly options: DecoderPoolOptions) {
    this.limits = options.limits;
    this.pool = new Piscina({
      filename: threadFilename(),
      minThreads: 0,
      maxThreads: options.threads,
      idleTimeout: 60_000,
      // One task per thread at a time: a thread's heap limit is then one file's.
      concurrentTasksPerWorker: 1,
      resourceLimits: { maxOldGenerationSizeMb: options.heapMb, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 },
    });
  }

  async inspect(bytes: Buffer, format: string, signal?: AbortSignal): Promise<Inspection> {
    // Refused from lengths alone (a 16 MiB XMP chunk, a PSD bomb): the file is never copied to a thread.
    return quickVerdict(bytes, format, this.limits) ?? ((await this.run('inspect', bytes, format, signal)) as Inspection);
  }

  async readMetadata(bytes: Buffer, format: string, signal?: AbortSignal): Promise<MetadataField[]> {
    return (await this.run('metadata', bytes, format, signal)) as MetadataField[];
  }

  async render(bytes: Buffer, format: string, signal?: AbortSignal): Promise<Renderings> {
    const { preview, layers } = (await this.run('render', bytes, format, signal)) as { preview: Uint8Array; layers: Array<{ name: string; png: Uint8Array }> };
    return { preview: asBuffer(preview), layers: layers.map((l) => ({ name: l.name, png: asBuffer(l.png) })) };
  }

  /** Threads running now (tests and metrics). */
  get threads(): number {
    return this.pool.threads.length;
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.pool.close({ force: true });
  }

  private async run(task: DecodeTask, bytes: Buffer, format: string, signal?: AbortSignal): Promise<unknown> {
    // A copy crosses to the thread (the job keeps its buffer for the next check).
    const request: DecodeRequest = { task, bytes, format, limits: this.limits };
    let answer: DecodeAnswer;
    try {
      answer = await this.pool.run(request, signal ? { signal } : {});
    } catch (err) {
      if (signal?.aborted || this.closing) throw err; // the job is stopping: nothing to blame
      throw await this.blame(err);
    }
    if (answer.ok) return answer.value;
    if (answer.failure === 'undecodable') throw undecodable(answer.message);
    throw new Error(`the decoder thread could not start its work: ${answer.message}`);
  }

  /** A thread died on this file: the file's fault if a fresh thread decodes the probe image. */
  private async blame(crash: unknown): Promise<Error> {
    const what = crash instanceof Error ? `${(crash as NodeJS.ErrnoException).code ?? crash.name}: ${crash.message}` : String(crash);
    let healthy = false;
    try {
      healthy = (await this.pool.run({ task: 'probe', bytes: new Uint8Array(0), format: 'png', limits: this.limits })).ok;
    } catch {
      healthy = false;
    }
    this.options.onThreadCrash?.(crash, healthy ? 'file' : 'pool');
    if (healthy) return new PermanentJobError(`the file crashed its decoder thread (${what})`, { cause: crash });
    return new Error(`decoder threads are failing, the file is not blamed (${what})`, { cause: crash });
  }
}
