/**
 * A tiled log in memory for the verifier's unit tests, built with node:crypto straight from the specs
 * (RFC 6962 hashing, C2SP tlog-tiles layout, C2SP signed-note Ed25519 signatures), independent of the code
 * under test. `fetch` serves it under `https://log.test/log/`.
 */
import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';

export const ORIGIN = 'log.test/log';
export const PREFIX = 'https://log.test/log';

const sha = (...parts: Buffer[]): Buffer => createHash('sha256').update(Buffer.concat(parts)).digest();
export const leafHashOf = (entry: Buffer): Buffer => sha(Buffer.from([0]), entry);
export const nodeHashOf = (l: Buffer, r: Buffer): Buffer => sha(Buffer.from([1]), l, r);

export function mth(leaves: Buffer[]): Buffer {
  if (leaves.length === 0) return sha();
  if (leaves.length === 1) return leaves[0]!;
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return nodeHashOf(mth(leaves.slice(0, k)), mth(leaves.slice(k)));
}

export function tileIndex(n: number): string {
  const groups: string[] = [];
  do {
    groups.unshift(String(n % 1000).padStart(3, '0'));
    n = Math.floor(n / 1000);
  } while (n > 0);
  return groups.map((g, i) => (i < groups.length - 1 ? `x${g}` : g)).join('/');
}

export interface KeyPair {
  name: string;
  privateKey: KeyObject;
  publicKey: Buffer;
  keyId: Buffer;
  keyString: string;
}

export function makeKey(name = ORIGIN): KeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  const keyId = sha(Buffer.from(`${name}\n`), Buffer.from([1]), raw).subarray(0, 4);
  return { name, privateKey, publicKey: raw, keyId, keyString: `${name}+${keyId.toString('hex')}+${Buffer.concat([Buffer.from([1]), raw]).toString('base64')}` };
}

export function signNote(text: string, key: KeyPair): string {
  const signature = sign(null, Buffer.from(text), key.privateKey);
  return `${text}\n\u2014 ${key.name} ${Buffer.concat([key.keyId, signature]).toString('base64')}\n`;
}

export class MemoryLog {
  readonly entries: Buffer[] = [];
  readonly files = new Map<string, Buffer>();
  readonly requested: string[] = [];
  checkpoints: string[] = [];

  constructor(
    readonly key: KeyPair,
    readonly origin = ORIGIN,
  ) {
    this.files.set('key', Buffer.from(`${key.keyString}\n`));
  }

  /** Appends entries, writes the tiles and bundles of the new size and signs a checkpoint; returns it. */
  append(entries: Buffer[]): string {
    this.entries.push(...entries);
    const size = this.entries.length;
    let level: Buffer[] = this.entries.map(leafHashOf);
    for (let l = 0; level.length > 0; l++) {
      for (let t = 0; t * 256 < level.length; t++) {
        const group = level.slice(t * 256, t * 256 + 256);
        const suffix = group.length === 256 ? '' : `.p/${group.length}`;
        this.files.set(`tile/${l}/${tileIndex(t)}${suffix}`, Buffer.concat(group));
        if (l === 0) {
          const bundle = this.entries.slice(t * 256, t * 256 + 256).map((e) => Buffer.concat([Buffer.from([e.length >> 8, e.length & 255]), e]));
          this.files.set(`tile/entries/${tileIndex(t)}${suffix}`, Buffer.concat(bundle));
        }
      }
      const next: Buffer[] = [];
      for (let i = 0; (i + 1) * 256 <= level.length; i++) next.push(mth(level.slice(i * 256, (i + 1) * 256)));
      level = next;
    }
    const note = signNote(`${this.origin}\n${size}\n${mth(this.entries.map(leafHashOf)).toString('base64')}\n`, this.key);
    this.files.set('checkpoint', Buffer.from(note));
    this.checkpoints.push(note);
    return note;
  }

  readonly fetch = async (input: string | URL | Request): Promise<Response> => {
    const url = String(input instanceof Request ? input.url : input);
    if (!url.startsWith(`${PREFIX}/`)) return new Response('no such host', { status: 502 });
    const path = url.slice(PREFIX.length + 1);
    this.requested.push(path);
    const body = this.files.get(path);
    return body ? new Response(new Uint8Array(body)) : new Response('not found', { status: 404 });
  };
}

/** A certdesk entry's canonical text. */
export function entryText(type: 'certificate.issued' | 'certificate.revoked', certificateSha256: string, at: string): string {
  return `{"at":"${at}","certificate_sha256":"${certificateSha256}","type":"${type}"}`;
}
