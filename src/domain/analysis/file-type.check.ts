/**
 * `file_type`: the asset's real format, from its magic numbers (the `file-type` package), never from its
 * name or announced content type. PNG, JPEG, WebP, TIFF and PSD are accepted; anything else ends the order
 * as `Unsupported File`. It is also the header check: a file whose headers declare more than the limits
 * (pixels, PSD layers, metadata block sizes: decoding/inspect.ts) ends `Unsupported File` with the limit
 * named in the reason, before any check decodes it; a header that cannot be read fails the job at once.
 */
import { fileTypeFromBuffer } from 'file-type';
import type { AnalysisCheck, AnalysisContext, CheckOutcome } from './analysis-check.js';
import { quickVerdict } from './decoding/inspect.js';

/** file-type's extension → the format name certdesk uses. */
export const ACCEPTED_FORMATS: Readonly<Record<string, string>> = {
  png: 'png',
  jpg: 'jpeg',
  webp: 'webp',
  tif: 'tiff',
  psd: 'psd',
};

/**
 * The head the header limits are first tried on, before the file is read whole: a PSD's declared size is
 * in its first 26 bytes, and a PNG's, JPEG's, WebP's or TIFF's metadata blocks declare their lengths in
 * headers that come early (a block the head does not reach is judged by the full check). A 16 MiB XMP
 * block is thus refused for the price of 64 KiB, not of the whole file held in memory.
 */
export const HEAD_VERDICT_BYTES = 64 * 1024;

/** The head the format is recognized from: file-type needs 4,100 bytes; the verdict's head is read once for both. */
const SNIFF_BYTES = HEAD_VERDICT_BYTES;

/** The accepted format of the asset (`png`, `jpeg`, `webp`, `tiff`, `psd`), or undefined; later checks use it too. */
export async function sniffFormat(context: AnalysisContext): Promise<{ format: string | undefined; mime: string | undefined }> {
  const detected = await fileTypeFromBuffer(await context.readHead(SNIFF_BYTES));
  return { format: detected ? ACCEPTED_FORMATS[detected.ext] : undefined, mime: detected?.mime };
}

export const fileTypeCheck: AnalysisCheck = {
  name: 'file_type',
  async run(context): Promise<CheckOutcome> {
    const { format, mime } = await sniffFormat(context);
    if (!format) return { outcome: 'unsupported', reason: mime ? `format ${mime} is not accepted` : 'unrecognized format' };
    const early = quickVerdict(await context.readHead(HEAD_VERDICT_BYTES), format, context.decoder.limits);
    if (early && !early.accepted) return { outcome: 'unsupported', reason: early.reason };
    const inspection = await context.decoder.inspect(await context.readAll(), format, context.signal);
    if (!inspection.accepted) return { outcome: 'unsupported', reason: inspection.reason };
    context.facts.set('format', format);
    return { outcome: 'passed', facts: { format, mime, width: inspection.width, height: inspection.height, layers: inspection.layers } };
  },
};
