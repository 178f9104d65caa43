/**
 * The limits on uploads a user may hold and create (docs/intake.md, "Upload limits"), checked before an
 * upload is recorded or a byte of it stored:
 * - outstanding: uploads of the user that no order used yet and that have not expired, at most
 *   MAX_OUTSTANDING_UPLOADS of them and MAX_OUTSTANDING_UPLOAD_BYTES of announced size. `Retry-After` is the
 *   time until the first of them expires (using one in an order frees it at once).
 * - rate: at most UPLOAD_RATE_LIMIT uploads created per UPLOAD_RATE_WINDOW, a fixed window counted in the
 *   shared rate-limit store (Redis when REDIS_URL is set, so every instance counts together).
 * Both answer 429 `{"detail"}` with `Retry-After`. The outstanding count is read before the insert, so
 * requests racing each other may pass it by their number; the rate limit bounds that. A rate-limit store
 * that does not answer lets the upload through (reported to `onStoreError`): uploads must not stop when
 * Redis does, and the outstanding limits still hold.
 */
import { ApiError } from '../errors.js';
import type { Principal } from '../principal.js';
import type { Clock } from '../time/clock.js';
import type { Executor } from '../../storage/database.js';
import { outstandingUploads } from './upload.repository.js';

export interface UploadLimitSettings {
  maxOutstandingUploads: number;
  maxOutstandingUploadBytes: number;
  uploadRateLimit: number;
  uploadRateWindowSeconds: number;
}

/** A fixed-window counter shared by the instances (the rate-limit store's `increment`). */
export interface WindowCounter {
  increment(key: string, windowMs: number, now: number): Promise<{ count: number; resetAt: number }>;
}

/** 429 with `Retry-After` (whole seconds, at least 1). */
export class UploadLimitError extends ApiError {
  override name = 'UploadLimitError';
  constructor(
    readonly rule: 'rate' | 'count' | 'bytes',
    readonly retryAfterSeconds: number,
    max: number,
  ) {
    const key = rule === 'rate' ? 'errors.upload_rate_limited' : rule === 'count' ? 'errors.too_many_outstanding_uploads' : 'errors.outstanding_upload_bytes';
    super(429, key, { vars: { max, seconds: retryAfterSeconds }, headers: { 'Retry-After': String(retryAfterSeconds) } });
  }
}

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

export class UploadLimits {
  constructor(
    private readonly db: Executor,
    private readonly clock: Clock,
    private readonly settings: UploadLimitSettings,
    private readonly counter: WindowCounter,
    private readonly onStoreError: (err: unknown) => void = () => undefined,
  ) {}

  /**
   * Admits one more upload of `size` bytes (0 when the size is not known before the bytes arrive: a
   * multipart file, at most 25 MiB, is then held to the count and to the bytes already outstanding).
   * @throws UploadLimitError
   */
  async admitUpload(principal: Principal, size: number): Promise<void> {
    const now = this.clock.now();
    const held = await outstandingUploads(this.db, principal.userId, now);
    const untilFirstExpiry = held.firstExpiry ? held.firstExpiry.getTime() - now.getTime() : 1000;
    if (held.count >= this.settings.maxOutstandingUploads) throw new UploadLimitError('count', seconds(untilFirstExpiry), this.settings.maxOutstandingUploads);
    if (held.bytes + size > this.settings.maxOutstandingUploadBytes || (size === 0 && held.bytes >= this.settings.maxOutstandingUploadBytes)) {
      throw new UploadLimitError('bytes', seconds(untilFirstExpiry), this.settings.maxOutstandingUploadBytes);
    }
    // Counted last, so a request refused above does not use up the rate as well.
    let window: { count: number; resetAt: number };
    try {
      window = await this.counter.increment(`uploads:user:${principal.userId}`, this.settings.uploadRateWindowSeconds * 1000, now.getTime());
    } catch (err) {
      this.onStoreError(err);
      return;
    }
    if (window.count > this.settings.uploadRateLimit) throw new UploadLimitError('rate', seconds(window.resetAt - now.getTime()), this.settings.uploadRateLimit);
  }
}
