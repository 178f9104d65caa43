/**
 * The code a decoder thread runs (decoder-pool.ts starts it with piscina): one decoding task per call.
 * The answer says whose failure it was. A decoding error is the file's (`undecodable`): the job fails for
 * good. A failure to load the image libraries is the installation's (`internal`): transient, retried.
 * Buffers cross the thread boundary as Uint8Array; the pool turns them back into Buffers.
 */
import { loadAgPsd, loadSharp } from '../image-libraries.js';
import { readMetadataFields } from '../metadata/read-metadata.js';
import { renderAsset } from '../rendering/render.js';
import { inspectImage } from './inspect.js';
import type { DecodeTask } from './image-decoder.js';
import type { ImageLimits } from './image-limits.js';

export interface DecodeRequest {
  task: DecodeTask | 'probe';
  bytes: Uint8Array;
  format: string;
  limits: ImageLimits;
}

export type DecodeAnswer =
  | { ok: true; value: unknown }
  | { ok: false; failure: 'undecodable' | 'internal'; message: string };

/** A 1×1 PNG made and read back: proves this thread can decode at all (decoder-pool.ts, after a crash). */
async function probe(): Promise<unknown> {
  const sharp = await loadSharp();
  const png = await sharp({ create: { width: 1, height: 1, channels: 3, background: '#fff' } }).png().toBuffer();
  return (await sharp(png).metadata()).width;
}

let configured = false;

/**
 * libvips' operation cache keeps recent images' pixels for reuse (up to 50 MB by default): each file is
 * decoded once, so it only holds memory the next hostile file could need.
 */
async function configureOnce(): Promise<void> {
  if (configured) return;
  const [sharp] = await Promise.all([loadSharp(), loadAgPsd()]);
  sharp.cache(false);
  configured = true;
}

export default async function decode(request: DecodeRequest): Promise<DecodeAnswer> {
  let run: (bytes: Buffer, format: string, limits: ImageLimits) => Promise<unknown>;
  try {
    await configureOnce();
    if (request.task === 'probe') return { ok: true, value: await probe() };
    run = { inspect: inspectImage, metadata: readMetadataFields, render: renderAsset }[request.task];
  } catch (err) {
    return { ok: false, failure: 'internal', message: (err as Error).message };
  }
  const bytes = Buffer.from(request.bytes.buffer, request.bytes.byteOffset, request.bytes.byteLength);
  try {
    return { ok: true, value: await run(bytes, request.format, request.limits) };
  } catch (err) {
    return { ok: false, failure: 'undecodable', message: (err as Error).message };
  }
}
