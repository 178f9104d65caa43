/**
 * Presigned object URLs. The interface is all the listing needs, so an S3 presigner (AWS SDK) can replace
 * the HMAC one without touching callers.
 *
 * HMAC form: `{publicBaseUrl}/objects/{key}?expires=<unix seconds>&signature=<base64url HMAC-SHA256>`, the MAC
 * taken over `"obj1\n" + key + "\n" + expires` with a deployment-wide key from `server_secrets`.
 *
 * `expires` is rounded down to a step of at most a minute (a tenth of the TTL for short TTLs), so a URL
 * lives between TTL − step and TTL seconds (never longer than configured). Within one step (a window) the
 * URL of a key is the same in every response: browsers cache the image instead of fetching it again (the
 * object route lets them, until `expires`), and the signer reuses the URL it computed, from a bounded LRU
 * keyed by (key, window), instead of taking one HMAC per preview and layer on every listing. The cache
 * holds only URLs this process would hand out anyway; each process of a cluster keeps its own.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { encodeKeyPath } from './object-key.js';

/** Turns an object key into a time-limited URL. */
export interface UrlPresigner {
  /** @param nowSeconds the signing time (tests pass a fixed clock). */
  presign(key: string, nowSeconds?: number): string;
  /** The same URL as a JSON string literal, as a response body splices it in. */
  presignJson(key: string, nowSeconds?: number): string;
  /** presignJson's UTF-8 bytes (the listing assembles its body from buffers). Callers must not modify them. */
  presignJsonBytes(key: string, nowSeconds?: number): Buffer;
}

export type PresignCheck = 'ok' | 'expired' | 'bad-signature';

/** Path prefix under which `serve` answers presigned object URLs. */
export const OBJECTS_PATH = '/objects/';

/** Signed URLs kept (least recently used dropped first): ~20,000 × ~200 bytes bounds the cache near 5 MB. */
export const MAX_CACHED_URLS = 20_000;

/** A URL signed for one window (`expires`), with its JSON form. */
interface SignedUrl {
  expires: string;
  url: string;
  json: string;
  /** json's UTF-8 bytes, made on first use. */
  jsonBytes?: Buffer;
}

/** The embedded presigner: HMAC-SHA256 over key and expiry, verified by `GET /objects/*`. */
export class HmacUrlPresigner implements UrlPresigner {
  private readonly prefix: string;
  private readonly step: number;
  /** key -> the URL of the window it was signed in; a URL of an older window is signed again. */
  private readonly cache = new LRUCache<string, SignedUrl>({ max: MAX_CACHED_URLS });

  constructor(
    private readonly secret: Buffer,
    publicBaseUrl: string,
    private readonly ttlSeconds: number,
  ) {
    this.prefix = `${publicBaseUrl.replace(/\/+$/, '')}${OBJECTS_PATH}`;
    this.step = Math.max(1, Math.min(60, Math.floor(ttlSeconds / 10)));
  }

  /** URLs currently cached (never more than MAX_CACHED_URLS). */
  get cachedUrls(): number {
    return this.cache.size;
  }

  private mac(key: string, expires: string): Buffer {
    return createHmac('sha256', this.secret).update(`obj1\n${key}\n${expires}`).digest();
  }

  presign(key: string, nowSeconds = Math.floor(Date.now() / 1000)): string {
    return this.signed(key, nowSeconds).url;
  }

  /**
   * The listing splices 200-400 URLs into every page: kept quoted in the cache, a URL is not escaped and
   * copied again for each response (~70 KB of strings per page of 200 full orders).
   */
  presignJson(key: string, nowSeconds = Math.floor(Date.now() / 1000)): string {
    return this.signed(key, nowSeconds).json;
  }

  presignJsonBytes(key: string, nowSeconds = Math.floor(Date.now() / 1000)): Buffer {
    const entry = this.signed(key, nowSeconds);
    return (entry.jsonBytes ??= Buffer.from(entry.json, 'utf8'));
  }

  private signed(key: string, nowSeconds: number): SignedUrl {
    const expires = String(Math.floor((nowSeconds + this.ttlSeconds) / this.step) * this.step);
    const cached = this.cache.get(key);
    if (cached !== undefined && cached.expires === expires) return cached;
    const url = `${this.prefix}${encodeKeyPath(key)}?expires=${expires}&signature=${this.mac(key, expires).toString('base64url')}`;
    const entry = { expires, url, json: JSON.stringify(url) };
    this.cache.set(key, entry);
    return entry;
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
