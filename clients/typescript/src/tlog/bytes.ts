/**
 * Byte helpers of the transparency-log verifier: standard base64 (RFC 4648 section 4, as C2SP notes and
 * checkpoints use it), hex, UTF-8, SHA-256 through WebCrypto. Browser and Node 20 alike: no Node module.
 */

import { sha256 as nobleSha256 } from '@noble/hashes/sha2.js';

export type Bytes = Uint8Array<ArrayBuffer>;

export function bytes(length: number): Bytes {
  return new Uint8Array(new ArrayBuffer(length));
}

export function concat(...parts: Uint8Array[]): Bytes {
  const out = bytes(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Strict standard base64 (padding required, no whitespace); `null` when `text` is not that. */
export function fromBase64(text: string): Bytes | null {
  if (!BASE64.test(text)) return null;
  const binary = atob(text);
  const out = bytes(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  // The canonical encoding only: unused bits of the last character must be zero.
  return toBase64(out) === text ? out : null;
}

export function toBase64(data: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < data.length; i += 0x8000) binary += String.fromCharCode(...data.subarray(i, i + 0x8000));
  return btoa(binary);
}

export function toHex(data: Uint8Array): string {
  let out = '';
  for (const b of data) out += b.toString(16).padStart(2, '0');
  return out;
}

export function utf8(text: string): Bytes {
  const encoded = new TextEncoder().encode(text);
  const out = bytes(encoded.length);
  out.set(encoded);
  return out;
}

/**
 * SHA-256, synchronous (@noble/hashes): a full audit hashes every entry and node of the log, and WebCrypto's
 * promise per digest made that about 40 times slower.
 */
export function sha256(...parts: Uint8Array[]): Bytes {
  const hash = nobleSha256.create();
  for (const part of parts) hash.update(part);
  const out = bytes(32);
  out.set(hash.digest());
  return out;
}
