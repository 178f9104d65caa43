/**
 * Keyset page tokens: opaque, URL-safe, HMAC-signed cursors.
 *
 * Format: `base64url(payload) "." base64url(HMAC-SHA256(key, "pt1." + base64url(payload)))`, where payload is
 * the JSON array `[1, organizationId, userId, projectFilter, creationTimeMicros, orderId]`. The token binds the
 * organization, the caller and the project filter (a token is refused anywhere else) and carries the last
 * row's position: its creation time in exact microseconds since the epoch (as a decimal string, so no float
 * rounding) and its order id.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Where a page ends: the sort key of its last row. */
export interface KeysetCursor {
  /** creation_time in microseconds since the Unix epoch, exact. */
  creationTimeMicros: bigint;
  orderId: string;
}

/** What a token is valid for. */
export interface PageTokenBinding {
  organizationId: string;
  userId: string;
  /** The `project_id` filter exactly as the caller gave it. */
  projectFilter: string;
}

export type PageTokenProblem = 'malformed' | 'signature' | 'mismatch';

export class InvalidPageTokenError extends Error {
  override name = 'InvalidPageTokenError';
  constructor(readonly problem: PageTokenProblem) {
    super(`invalid page token (${problem})`);
  }
}

const VERSION = 1;
const DOMAIN = 'pt1.';
/** Far beyond any real token (ids are bounded), so a huge input is refused before any work. */
const MAX_TOKEN_LENGTH = 2048;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** Signs and verifies page tokens with one deployment-wide key. */
export class PageTokenCodec {
  constructor(private readonly key: Buffer) {}

  private mac(body: string): Buffer {
    return createHmac('sha256', this.key).update(DOMAIN).update(body).digest();
  }

  /** @example codec.sign({ creationTimeMicros: 1767225600000000n, orderId: 'o-1' }, binding) */
  sign(cursor: KeysetCursor, binding: PageTokenBinding): string {
    const payload = [VERSION, binding.organizationId, binding.userId, binding.projectFilter, cursor.creationTimeMicros.toString(), cursor.orderId];
    const body = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
    return `${body}.${this.mac(body).toString('base64url')}`;
  }

  /** Returns the cursor of a token made by `sign` for the same binding; throws InvalidPageTokenError otherwise. */
  verify(token: string, binding: PageTokenBinding): KeysetCursor {
    if (token.length > MAX_TOKEN_LENGTH) throw new InvalidPageTokenError('malformed');
    const dot = token.indexOf('.');
    const body = token.slice(0, dot);
    const signature = token.slice(dot + 1);
    if (dot <= 0 || !BASE64URL.test(body) || !BASE64URL.test(signature)) throw new InvalidPageTokenError('malformed');
    // Compared as text, not decoded bytes: base64url decoding ignores the spare bits of the last character,
    // and a token that differs in any character must be refused.
    const given = Buffer.from(signature, 'latin1');
    const expected = Buffer.from(this.mac(body).toString('base64url'), 'latin1');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new InvalidPageTokenError('signature');
    let payload: unknown;
    try {
      payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    } catch {
      throw new InvalidPageTokenError('malformed');
    }
    if (
      !Array.isArray(payload) ||
      payload.length !== 6 ||
      payload[0] !== VERSION ||
      !payload.slice(1).every((v) => typeof v === 'string') ||
      !/^-?\d{1,19}$/.test(payload[4] as string)
    ) {
      throw new InvalidPageTokenError('malformed');
    }
    const [, organizationId, userId, projectFilter, micros, orderId] = payload as [number, string, string, string, string, string];
    if (organizationId !== binding.organizationId || userId !== binding.userId || projectFilter !== binding.projectFilter) {
      throw new InvalidPageTokenError('mismatch');
    }
    return { creationTimeMicros: BigInt(micros), orderId };
  }
}
