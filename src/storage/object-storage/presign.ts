/**
 * Presigned object URLs. The interface is all the listing needs, so an S3 presigner (AWS SDK) can replace
 * the HMAC one without touching callers.
 *
 * HMAC form: `{publicBaseUrl}/objects/{key}?expires=<unix seconds>&signature=<base64url HMAC-SHA256>`, the MAC
 * taken over `"obj1\n" + key + "\n" + expires` with a deployment-wide key from `server_secrets`.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Turns an object key into a time-limited URL. */
export interface UrlPresigner {
  /** @param nowSeconds the signing time (tests pass a fixed clock). */
  presign(key: string, nowSeconds?: number): string;
}

export type PresignCheck = 'ok' | 'expired' | 'bad-signature';

/** Path prefix under which `serve` answers presigned object URLs. */
export const OBJECTS_PATH = '/objects/';

/** Encodes a key for a URL path, keeping its slashes (keys are `[A-Za-z0-9._/-]`, so this is cheap). */
function encodeKeyPath(key: string): string {
  return key.split('/').map(encodeURIComponent).join('/');
}

export class HmacUrlPresigner implements UrlPresigner {
  private readonly prefix: string;

  constructor(
    private readonly secret: Buffer,
    publicBaseUrl: string,
    private readonly ttlSeconds: number,
  ) {
    this.prefix = `${publicBaseUrl.replace(/\/+$/, '')}${OBJECTS_PATH}`;
  }

  private mac(key: string, expires: string): Buffer {
    return createHmac('sha256', this.secret).update(`obj1\n${key}\n${expires}`).digest();
  }

  presign(key: string, nowSeconds = Math.floor(Date.now() / 1000)): string {
    const expires = String(nowSeconds + this.ttlSeconds);
    return `${this.prefix}${encodeKeyPath(key)}?expires=${expires}&signature=${this.mac(key, expires).toString('base64url')}`;
  }

  /** Checks a request for `key` carrying `expires` and `signature` query values. */
  verify(key: string, expires: unknown, signature: unknown, nowSeconds = Math.floor(Date.now() / 1000)): PresignCheck {
    if (typeof expires !== 'string' || typeof signature !== 'string' || !/^\d{1,12}$/.test(expires) || !/^[A-Za-z0-9_-]{1,100}$/.test(signature)) {
      return 'bad-signature';
    }
    // Compared as text: base64url decoding ignores the spare bits of the last character.
    const given = Buffer.from(signature, 'latin1');
    const expected = Buffer.from(this.mac(key, expires).toString('base64url'), 'latin1');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'bad-signature';
    return Number(expires) < nowSeconds ? 'expired' : 'ok';
  }
}
