/**
 * What the analysis checks ask of image decoding: the header check, the metadata fields, the renderings.
 * Two implementations: `DecoderPool` (decoder-pool.ts, worker threads: what `serve` and `certdesk worker`
 * use) and `inProcessDecoder` (this thread: unit tests of the checks, tools).
 *
 * Both throw `PermanentJobError` for a file that cannot be decoded (truncated, corrupt, a polyglot whose
 * magic number lies): no retry changes bad bytes. Anything else they throw is transient.
 */
import { PermanentJobError } from '../../background/job-handler.js';
import type { MetadataField } from '../metadata/read-metadata.js';
import type { RenderedLayer } from '../rendering/render.js';
import { DEFAULT_IMAGE_LIMITS, type ImageLimits } from './image-limits.js';
import type { Inspection } from './inspect.js';

export interface Renderings {
  preview: Buffer;
  layers: RenderedLayer[];
}

export interface ImageDecoder {
  readonly limits: ImageLimits;
  /** The header check: may the file be decoded at all? */
  inspect(bytes: Buffer, format: string, signal?: AbortSignal): Promise<Inspection>;
  readMetadata(bytes: Buffer, format: string, signal?: AbortSignal): Promise<MetadataField[]>;
  render(bytes: Buffer, format: string, signal?: AbortSignal): Promise<Renderings>;
}

/** The three decoding tasks, as run in a decoder thread or in-process. */
export type DecodeTask = 'inspect' | 'metadata' | 'render';

/** A decoding failure that is the file's: the job fails at once. */
export function undecodable(message: string, cause?: unknown): PermanentJobError {
  // Decoders repeat their complaint over many lines: the first says it (the error lands in the job and the history).
  const first = message.split('\n', 1)[0]!.slice(0, 300);
  return new PermanentJobError(`the file cannot be decoded: ${first}`, { cause });
}

/** Runs a task in this thread; decoding errors become PermanentJobError. */
export async function decodeHere(task: DecodeTask, bytes: Buffer, format: string, limits: ImageLimits): Promise<unknown> {
  // Imported on use: a process that only serves the API never loads sharp or ag-psd (image-libraries.ts).
  const [{ inspectImage }, { readMetadataFields }, { renderAsset }] = await Promise.all([
    import('./inspect.js'),
    import('../metadata/read-metadata.js'),
    import('../rendering/render.js'),
  ]);
  try {
    if (task === 'inspect') return await inspectImage(bytes, format, limits);
    if (task === 'metadata') return await readMetadataFields(bytes, format, limits);
    return await renderAsset(bytes, format, limits);
  } catch (err) {
    throw undecodable((err as Error).message, err);
  }
}

/** Decoding in the calling thread, with the given limits. */
export function inProcessDecoder(limits: ImageLimits = DEFAULT_IMAGE_LIMITS): ImageDecoder {
  return {
    limits,
    inspect: async (bytes, format) => (await decodeHere('inspect', bytes, format, limits)) as Inspection,
    readMetadata: async (bytes, format) => (await decodeHere('metadata', bytes, format, limits)) as MetadataField[],
    render: async (bytes, format) => (await decodeHere('render', bytes, format, limits)) as Renderings,
  };
}
