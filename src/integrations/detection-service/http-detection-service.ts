/**
 * The HTTP adapter to the external AI detection service (protocol: domain/analysis/detection/
 * detection-protocol.ts, docs/detection-service.md). Guards on the way out:
 * - it only ever talks to the one configured URL: the URL is fixed at construction, redirects are refused;
 * - the request body is bounded (`maxRequestBytes`) and so is the answer (`MAX_RESPONSE_BYTES`);
 * - every call has a deadline (`timeoutMs`) on top of the job's own abort signal;
 * - the key travels only in the Authorization header; the URL carries no credentials (refused here as in
 *   config.ts) and its query string may hold a secret, so errors name the service by origin and path only,
 *   and every message passes through `redact` before it is thrown (it ends up in `jobs.last_error`, in the
 *   order's `Failed` event and in logs).
 *
 * Errors (docs/detection-service.md, "Failures"): a refusal of these bytes (400, 413, 415, 422), and an
 * image above `maxRequestBytes`, is a `DetectionRefusedError`, a PermanentJobError: no retry can change
 * it. Everything else is a transient `DetectionServiceError` (or DetectionProtocolError) and the job is
 * retried with backoff: network failures, timeouts, 5xx, 408 and 429, and also 401/403/404 and any other
 * status, which say certdesk's key or URL is wrong: an operator's fix, after which the retries succeed,
 * must not find every order of the outage already `Failed`.
 */
import { PermanentJobError } from '../../domain/background/job-handler.js';
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

/** A transient failure of the detection service (the job is retried). */
export class DetectionServiceError extends Error {
  override name = 'DetectionServiceError';
  constructor(
    message: string,
    /** The service's HTTP status, when it answered. */
    readonly status: number | null = null,
  ) {
    super(message);
  }
}

/** The service refuses these bytes for good (or they are too large to send): no retry can change it. */
export class DetectionRefusedError extends PermanentJobError {
  override name = 'DetectionRefusedError';
  constructor(
    message: string,
    readonly status: number | null = null,
  ) {
    super(message);
  }
}

/** Statuses by which the service refuses the request's content: permanent for this image. */
export const REFUSED_STATUSES: ReadonlySet<number> = new Set([400, 413, 415, 422]);

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
    // Never repeat the URL in these messages: it may be the secret-carrying value being refused.
    try {
      this.url = new URL(options.url);
    } catch {
      throw new Error('the detection service URL is not an absolute URL');
    }
    if (this.url.protocol !== 'https:' && this.url.protocol !== 'http:') throw new Error('the detection service URL must be http(s)');
    if (this.url.username !== '' || this.url.password !== '') {
      throw new Error('the detection service URL must not contain credentials (user:password@): the key is AI_DETECTION_KEY');
    }
    this.maxRequestBytes = options.maxRequestBytes;
  }

  /**
   * The message with every secret of this adapter blanked out: the key, the whole URL and its query string
   * (which may hold a token). A last line of defence: messages are built from `description` in the first place.
   */
  redact(message: string): string {
    const query = this.url.search.slice(1);
    const secrets = [this.options.key, this.url.href, query, safeDecode(query), ...[...this.url.searchParams.values()]].filter((s) => s.length >= 4);
    let out = message;
    for (const secret of secrets) out = out.split(secret).join('[redacted]');
    return out;
  }

  private fail(error: Error): never {
    error.message = this.redact(error.message);
    // A stack repeats the message; keep it consistent with the redacted one.
    if (error.stack) error.stack = this.redact(error.stack);
    throw error;
  }

  /** Where requests go, without credentials (for logs and errors). */
  get description(): string {
    return `${this.url.origin}${this.url.pathname}`;
  }

  async detect(image: { bytes: Buffer; contentType: string }, signal: AbortSignal): Promise<DetectionResponseT> {
    try {
      return await this.send(image, signal);
    } catch (err) {
      if (err instanceof Error && !signal.aborted) this.fail(err);
      throw err;
    }
  }

  private async send(image: { bytes: Buffer; contentType: string }, signal: AbortSignal): Promise<DetectionResponseT> {
    if (image.bytes.length > this.maxRequestBytes) throw new DetectionRefusedError(`image of ${image.bytes.length} bytes exceeds the ${this.maxRequestBytes}-byte limit of the detection service`);
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
      throw new DetectionServiceError(timedOut ? `detection service ${this.description} did not answer within ${this.options.timeoutMs} ms` : `detection service ${this.description} unreachable: ${causeOf(err)}`);
    }
    try {
      const body = await readBounded(response, MAX_RESPONSE_BYTES);
      if (response.status !== 200) {
        const message = `detection service ${this.description} answered ${response.status}`;
        if (REFUSED_STATUSES.has(response.status)) throw new DetectionRefusedError(`${message}: it refuses this image`, response.status);
        throw new DetectionServiceError(message, response.status);
      }
      let json: unknown;
      try {
        json = JSON.parse(body.toString('utf8'));
      } catch {
        throw new DetectionProtocolError('detection service answered with a body that is not JSON');
      }
      return parseDetectionResponse(json);
    } catch (err) {
      if (deadline.aborted && !(err instanceof DetectionServiceError || err instanceof DetectionRefusedError || err instanceof DetectionProtocolError)) {
        signal.throwIfAborted();
        throw new DetectionServiceError(`detection service ${this.description} did not answer within ${this.options.timeoutMs} ms`);
      }
      throw err;
    }
  }
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** What a failed fetch says went wrong (undici puts the system error, e.g. ECONNREFUSED, in `cause`). */
function causeOf(err: unknown): string {
  const cause = (err as Error).cause;
  if (cause instanceof Error) return (cause as NodeJS.ErrnoException).code ?? cause.message;
  return String(cause ?? (err as Error).message);
}
