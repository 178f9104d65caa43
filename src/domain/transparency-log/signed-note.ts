/**
 * C2SP signed-note with Ed25519 (signature type 0x01) and the C2SP tlog-checkpoint text it signs:
 *
 *   <origin>\n<tree size>\n<base64 root hash>\n\n— <key name> <base64(key id || signature)>\n
 *
 * key id = SHA-256(key name || 0x0A || 0x01 || 32-byte public key)[:4]; the verifier key string is
 * `<name>+<8 hex key id>+<base64(0x01 || public key)>`. The key name is the log's origin.
 */
import { createHash, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';

const ED25519_TYPE = 0x01;
const EM_DASH = '\u2014';

/** The log's signing identity: its name (= origin) and Ed25519 key. */
export interface NoteSigner {
  name: string;
  /** 32-byte raw Ed25519 public key. */
  publicKey: Buffer;
  privateKey: KeyObject;
}

/** The 4-byte key id of an Ed25519 key of this name (signed-note). */
export function noteKeyId(name: string, publicKey: Buffer): Buffer {
  return createHash('sha256')
    .update(Buffer.from(name, 'utf8'))
    .update(Buffer.from([0x0a, ED25519_TYPE]))
    .update(publicKey)
    .digest()
    .subarray(0, 4);
}

/** `<name>+<8 hex key id>+<base64(0x01 || public key)>`: what a verifier is configured with. */
export function verifierKey(name: string, publicKey: Buffer): string {
  return `${name}+${noteKeyId(name, publicKey).toString('hex')}+${Buffer.concat([Buffer.from([ED25519_TYPE]), publicKey]).toString('base64')}`;
}

/** A key name as signed-note allows it: non-empty, no Unicode space, no `+`. */
export function isValidKeyName(name: string): boolean {
  return name.length > 0 && !/[\s+\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/u.test(name);
}

/** The tlog-checkpoint note text (ending in a newline): origin, size, base64 root hash. */
export function checkpointText(origin: string, size: number, root: Buffer): string {
  return `${origin}\n${size}\n${root.toString('base64')}\n`;
}

/** Signs a note text (ending in a newline) into a signed note with one Ed25519 signature line. */
export function signNote(text: string, signer: NoteSigner): string {
  if (!text.endsWith('\n')) throw new Error('a note text ends with a newline');
  const signature = sign(null, Buffer.from(text, 'utf8'), signer.privateKey);
  const keyId = noteKeyId(signer.name, signer.publicKey);
  return `${text}\n${EM_DASH} ${signer.name} ${Buffer.concat([keyId, signature]).toString('base64')}\n`;
}

/** A verified checkpoint. */
export interface Checkpoint {
  origin: string;
  size: number;
  root: Buffer;
  text: string;
}

/**
 * Opens a signed checkpoint with a verifier key string: the signature line of that key must verify, and
 * the text must be a checkpoint. Throws with a plain reason otherwise (the service's own self-check and
 * tests; third parties use their own verifiers).
 */
export function openCheckpoint(note: string, key: string): Checkpoint {
  // name+id+key: the key's base64 may itself contain `+`, the name never does.
  const first = key.indexOf('+');
  const second = key.indexOf('+', first + 1);
  const [name, idHex, keyB64] = [key.slice(0, first), key.slice(first + 1, second), key.slice(second + 1)];
  if (first <= 0 || second < 0 || !/^[0-9a-f]{8}$/.test(idHex) || !keyB64) throw new Error('malformed verifier key');
  const keyBytes = Buffer.from(keyB64, 'base64');
  if (keyBytes.length !== 33 || keyBytes[0] !== ED25519_TYPE) throw new Error('not an Ed25519 verifier key');
  const publicKey = keyBytes.subarray(1);
  const split = note.lastIndexOf('\n\n');
  if (split < 0) throw new Error('no signature block');
  const text = note.slice(0, split + 1);
  const lines = note.slice(split + 2).split('\n');
  if (lines.pop() !== '') throw new Error('the note does not end with a newline');
  let verified = false;
  for (const line of lines) {
    const m = /^\u2014 (\S+) (\S+)$/u.exec(line);
    if (!m) throw new Error(`malformed signature line: ${line}`);
    const sig = Buffer.from(m[2]!, 'base64');
    if (m[1] !== name || sig.length < 4 || sig.subarray(0, 4).toString('hex') !== idHex) continue;
    const spki = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), publicKey]);
    if (!verify(null, Buffer.from(text, 'utf8'), createPublicKey({ key: spki, format: 'der', type: 'spki' }), sig.subarray(4))) {
      throw new Error('the signature does not verify');
    }
    verified = true;
  }
  if (!verified) throw new Error('no signature by this key');
  const [origin, sizeText, rootB64] = text.split('\n');
  if (!origin || !sizeText || !/^(?:0|[1-9]\d*)$/.test(sizeText) || !rootB64) throw new Error('not a checkpoint');
  const root = Buffer.from(rootB64, 'base64');
  if (root.length !== 32) throw new Error('the root hash is not 32 bytes');
  return { origin, size: Number(sizeText), root, text };
}
