/**
 * `verifyWebhook(payload, headers, secret)`: checks a webhook delivery as the Standard Webhooks
 * specification signs it (the contract of certdesk's webhooks): `webhook-signature` holds one or more
 * space-separated `v1,<base64>` entries (two during a secret rotation), each the HMAC-SHA256 of
 * `${webhook-id}.${webhook-timestamp}.${payload}` keyed with the base64-decoded part of the `whsec_`
 * secret; `webhook-timestamp` (Unix seconds) must be within `toleranceSeconds` (default 300) of now, so
 * a captured delivery cannot be replayed later. WebCrypto only: works on Node 20 and in browsers.
 *
 * The payload must be the raw body as received (a re-serialized JSON object would not verify).
 */

export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
}

export interface WebhookEvent {
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

export interface VerifyWebhookOptions {
  toleranceSeconds?: number;
  /** Current time in milliseconds (tests). */
  now?: () => number;
}

type HeaderSource = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderSource, name: string): string | null {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name);
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? (value[0] ?? null) : (value ?? null);
}

function base64ToBytes(value: string): Uint8Array {
  const binary = atob(value);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** The parsed event when the delivery is authentic and fresh; throws `WebhookVerificationError` otherwise. */
export async function verifyWebhook(payload: string | Uint8Array, headers: HeaderSource, secret: string, options: VerifyWebhookOptions = {}): Promise<WebhookEvent> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature header');
  if (!/^\d+$/.test(timestamp)) throw new WebhookVerificationError('webhook-timestamp is not Unix seconds');
  const now = (options.now ?? Date.now)();
  const tolerance = (options.toleranceSeconds ?? 300) * 1000;
  if (Math.abs(now - Number(timestamp) * 1000) > tolerance) throw new WebhookVerificationError('webhook-timestamp is outside the tolerance');
  let keyBytes: Uint8Array;
  try {
    keyBytes = base64ToBytes(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret);
  } catch {
    throw new WebhookVerificationError('the secret is not a whsec_ base64 secret');
  }
  const body = typeof payload === 'string' ? payload : new TextDecoder().decode(payload);
  const key = await globalThis.crypto.subtle.importKey('raw', keyBytes as BufferSource, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = new Uint8Array(await globalThis.crypto.subtle.sign('HMAC', key, new TextEncoder().encode(`${id}.${timestamp}.${body}`)));
  const expected = bytesToBase64(mac);
  const matches = signatures
    .split(' ')
    .filter((entry) => entry.startsWith('v1,'))
    .some((entry) => constantTimeEqual(entry.slice(3), expected));
  if (!matches) throw new WebhookVerificationError('no webhook-signature entry matches');
  try {
    return JSON.parse(body) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('the payload is not JSON');
  }
}
