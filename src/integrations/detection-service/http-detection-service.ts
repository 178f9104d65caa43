/**
 * The HTTP adapter to the external AI detection service (protocol: domain/analysis/detection/
 * detection-protocol.ts, docs/detection-service.md). Guards on the way out:
 * - it only ever talks to the one configured URL: the URL is fixed at construction, redirects are refused;
 * - the request body is bounded (`maxRequestBytes`) and so is the answer (`MAX_RESPONSE_BYTES`);
 * - every call has a deadline (`timeoutMs`) on top of the job's own abort signal;
 * - the key travels only in the Authorization header and never appears in an error message.
 * Any failure throws: the analysis job is retried with backoff by the queue.
 */
import {
  DetectionProtocolError,
  parseDetectionResponse,
  type DetectionResponseT,
  type DetectionService,
} from '../../domain/analysis/detection/detection-protocol.js';

export interface HttpDetectionServiceOptions {
  url: string;
  key: string;
  timeoutMs: number;
  maxRequestBytes: number;
}

export const MAX_RESPONSE_BYTES = 1024 * 1024;

export class DetectionServiceError extends Error {
  override name = 'DetectionServiceError';
}

async function readBounded(response: Response, limit: number): Promise<Buffer> {
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (declared > limit) throw new DetectionServiceError(`detection service answer exceeds ${limit} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  const reader = response.body?.getReader();
  if (!reader) return Buffer.alloc(0);
  try {
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      size += next.value.byteLength;
      if (size > limit) throw new DetectionServiceError(`detection service answer exceeds ${limit} bytes`);
      chunks.push(Buffer.from(next.value));
    }
  } finally {
    reader.cancel().catch(() => {});
  }
  return Buffer.concat(chunks);
}

export class HttpDetectionService implements DetectionService {
  private readonly url: URL;
  readonly maxRequestBytes: number;

  constructor(private readonly options: HttpDetectionServiceOptions) {
    this.url = new URL(options.url);
    if (this.url.protocol !== 'https:' && this.url.protocol !== 'http:') throw new Error('the detection service URL must be http(s)');
    this.maxRequestBytes = options.maxRequestBytes;
  }

  /** Where requests go, without credentials (for logs and errors). */
  get description(): string {
    return `${this.url.origin}${this.url.pathname}`;
  }

  async detect(image: { bytes: Buffer; contentType: string }, signal: AbortSignal): Promise<DetectionResponseT> {
    if (image.bytes.length > this.maxRequestBytes) throw new DetectionServiceError(`image of ${image.bytes.length} bytes exceeds the ${this.maxRequestBytes}-byte limit of the detection service`);
    const deadline = AbortSignal.any([signal, AbortSignal.timeout(this.options.timeoutMs)]);
    let response: Response;
    try {
      response = await fetch(this.url, {
        method: 'POST',
        redirect: 'error',
        headers: { authorization: `Bearer ${this.options.key}`, 'content-type': image.contentType, accept: 'application/json' },
        // undici sends a Buffer as is; the DOM typing of BodyInit only lacks Node's Buffer.
        body: image.bytes as unknown as Uint8Array<ArrayBuffer>,
        signal: deadline,
      });
    } catch (err) {
      signal.throwIfAborted();
      const timedOut = deadline.aborted;
      throw new DetectionServiceError(timedOut ? `detection service ${this.description} did not answer within ${this.options.timeoutMs} ms` : `detection service ${this.description} unreachable: ${(err as Error).cause ?? (err as Error).message}`);
    }
    try {
      const body = await readBounded(response, MAX_RESPONSE_BYTES);
      if (response.status !== 200) throw new DetectionServiceError(`detection service ${this.description} answered ${response.status}`);
      let json: unknown;
      try {
        json = JSON.parse(body.toString('utf8'));
      } catch {
        throw new DetectionProtocolError('detection service answered with a body that is not JSON');
      }
      return parseDetectionResponse(json);
    } catch (err) {
      if (deadline.aborted && !(err instanceof DetectionServiceError || err instanceof DetectionProtocolError)) {
        signal.throwIfAborted();
        throw new DetectionServiceError(`detection service ${this.description} did not answer within ${this.options.timeoutMs} ms`);
      }
      throw err;
    }
  }
}
