/**
 * Checks a certdesk certificate (compact JWS, ES256) in the browser with WebCrypto against the
 * service's JWKS: the header (`alg`, `typ`, `kid`), a P-256 key of the JWKS by `kid`, the signature and
 * the issuer. Shared by the certificate page (/verify/{id}) and the file check (/verify).
 */

export type Reason = 'signature' | 'key' | 'issuer' | 'format' | 'mismatch' | 'unavailable' | 'unsupported';

export class CheckFailure extends Error {
  constructor(
    readonly reason: Reason,
    readonly vars: Record<string, string> = {},
  ) {
    super(reason);
  }
}

export interface VerifiedJws {
  kid: string;
  claims: Record<string, unknown>;
}

const TYP = 'certdesk-certificate+jwt';

export function base64urlBytes(text: string): Uint8Array<ArrayBuffer> {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new CheckFailure('format');
  const b64 = text.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((text.length + 3) % 4);
  const binary = atob(b64);
  const out = new Uint8Array(new ArrayBuffer(binary.length));
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

/** The JSON object of a base64url JWS part; CheckFailure('format') otherwise. */
export function jsonPart(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(new TextDecoder().decode(base64urlBytes(text)));
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch (err) {
    if (err instanceof CheckFailure) throw err;
  }
  throw new CheckFailure('format');
}

export function hex(buffer: ArrayBuffer): string {
  return Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** GET of this service's JSON (same origin, no cookies), revalidated so a revocation or a new key shows at once. */
export async function fetchJson(url: string): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, { cache: 'no-cache', credentials: 'omit', headers: { accept: 'application/json' } });
  } catch {
    throw new CheckFailure('unavailable');
  }
  if (!response.ok) throw new CheckFailure('unavailable', { status: String(response.status) });
  return response.json();
}

/** GET of this service's text (the log key), revalidated like fetchJson. */
export async function fetchText(url: string): Promise<string> {
  let response: Response;
  try {
    response = await fetch(url, { cache: 'no-cache', credentials: 'omit', headers: { accept: 'text/plain' } });
  } catch {
    throw new CheckFailure('unavailable');
  }
  if (!response.ok) throw new CheckFailure('unavailable', { status: String(response.status) });
  return response.text();
}

/** The JWS's claims when its signature verifies with a key of `jwks` and it was issued by `issuer`; throws CheckFailure otherwise. */
export async function verifyJws(jws: string, jwks: unknown, issuer: string): Promise<VerifiedJws> {
  if (!window.crypto?.subtle) throw new CheckFailure('unsupported');
  const parts = jws.split('.');
  if (parts.length !== 3) throw new CheckFailure('format');
  const [headerText, payloadText, signatureText] = parts as [string, string, string];
  const header = jsonPart(headerText);
  if (header.alg !== 'ES256' || header.typ !== TYP || typeof header.kid !== 'string') throw new CheckFailure('format');
  const keys = (jwks as { keys?: unknown })?.keys;
  const jwk = Array.isArray(keys) ? (keys as Array<Record<string, unknown>>).find((k) => k.kid === header.kid) : undefined;
  if (!jwk || jwk.kty !== 'EC' || jwk.crv !== 'P-256') throw new CheckFailure('key');
  const key = await crypto.subtle.importKey('jwk', { kty: 'EC', crv: 'P-256', x: String(jwk.x), y: String(jwk.y) }, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['verify']);
  const signature = base64urlBytes(signatureText);
  const signed = new TextEncoder().encode(`${headerText}.${payloadText}`);
  const valid = signature.length === 64 && (await crypto.subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, key, signature, signed));
  if (!valid) throw new CheckFailure('signature');
  const claims = jsonPart(payloadText);
  if (claims.iss !== issuer) throw new CheckFailure('issuer', { issuer: String(claims.iss) });
  return { kid: header.kid, claims };
}
