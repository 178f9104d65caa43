/**
 * C2SP signed-note (Ed25519 signatures only, type 0x01): verifier keys
 * `<name>+<8 hex key id>+<base64(0x01 || 32-byte public key)>` and notes
 * `<text>\n\n— <name> <base64(4-byte key id || signature)>\n...`. Signatures by unknown keys are ignored;
 * a signature by a known key (same name and key id) must verify, and at least one must.
 * Ed25519 is WebCrypto's (Node 20, current browsers).
 */
import { fromBase64, sha256, utf8, type Bytes } from './bytes.js';
import { TransparencyLogError } from './errors.js';

const ED25519 = 0x01;
/** More than this many signature lines and the note is refused (C2SP: accept at least 16). */
const MAX_SIGNATURES = 100;

export interface NoteVerifier {
  /** The key name (for a checkpoint, the log's origin). */
  name: string;
  /** The 32-bit key id, big-endian, as in the key string and each signature. */
  keyId: number;
  /** The raw 32-byte Ed25519 public key. */
  publicKey: Bytes;
  /** The key string it was read from. */
  keyString: string;
}

export interface SignedNote {
  /** The note text (every line ends with a newline; the blank separator line excluded). */
  text: string;
  /** The known keys whose signatures verified. */
  verifiedBy: NoteVerifier[];
}

function validKeyName(name: string): boolean {
  return name.length > 0 && !/[\s+]/u.test(name) && !hasControl(name);
}

function hasControl(text: string, allowNewline = false): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 && !(allowNewline && c === 0x0a)) return true;
  }
  return false;
}

/** The key id C2SP recommends: the first four bytes of SHA-256(name || 0x0A || 0x01 || public key), big-endian. */
export function ed25519KeyId(name: string, publicKey: Uint8Array): number {
  const digest = sha256(utf8(name), new Uint8Array([0x0a, ED25519]), publicKey);
  return new DataView(digest.buffer).getUint32(0, false);
}

/** Reads a verifier key string; throws `TransparencyLogError('key')` unless it is a well-formed Ed25519 key whose id matches. */
export async function parseVerifierKey(keyString: string): Promise<NoteVerifier> {
  const text = keyString.trim();
  const first = text.indexOf('+');
  const second = first < 0 ? -1 : text.indexOf('+', first + 1);
  if (first <= 0 || second < 0) throw new TransparencyLogError('key', 'the log key is not of the form <name>+<key id>+<key>');
  const name = text.slice(0, first);
  const id = text.slice(first + 1, second);
  const key = fromBase64(text.slice(second + 1));
  if (!validKeyName(name)) throw new TransparencyLogError('key', 'the log key has an invalid name');
  if (!/^[0-9a-f]{8}$/.test(id)) throw new TransparencyLogError('key', 'the log key id is not 8 lowercase hex digits');
  if (!key || key.length !== 33 || key[0] !== ED25519) throw new TransparencyLogError('key', 'the log key is not an Ed25519 key (0x01 followed by 32 bytes)');
  const publicKey = key.slice(1);
  const keyId = parseInt(id, 16);
  if (ed25519KeyId(name, publicKey) !== keyId) throw new TransparencyLogError('key', 'the log key id does not match its name and key');
  return { name, keyId, publicKey, keyString: text };
}

interface SignatureLine {
  name: string;
  keyId: number;
  signature: Bytes;
}

function splitNote(note: string): { text: string; signatures: SignatureLine[] } {
  if (hasControl(note, true)) throw new TransparencyLogError('format', 'the signed note contains control characters');
  if (!note.endsWith('\n')) throw new TransparencyLogError('format', 'the signed note does not end with a newline');
  const split = note.lastIndexOf('\n\n');
  if (split < 0) throw new TransparencyLogError('format', 'the signed note has no signature block');
  const text = note.slice(0, split + 1);
  const lines = note.slice(split + 2, -1).split('\n');
  if (lines.length > MAX_SIGNATURES) throw new TransparencyLogError('format', `the signed note has more than ${MAX_SIGNATURES} signatures`);
  const signatures = lines.map((line): SignatureLine => {
    const match = /^\u2014 (\S+) (\S+)$/u.exec(line);
    const blob = match ? fromBase64(match[2]!) : null;
    if (!match || !validKeyName(match[1]!) || !blob || blob.length < 5) throw new TransparencyLogError('format', 'the signed note has a malformed signature line');
    return { name: match[1]!, keyId: new DataView(blob.buffer).getUint32(0, false), signature: blob.slice(4) };
  });
  return { text, signatures };
}

async function ed25519Verify(publicKey: Bytes, signature: Bytes, message: Bytes): Promise<boolean> {
  let key: CryptoKey;
  try {
    key = await crypto.subtle.importKey('raw', publicKey, { name: 'Ed25519' }, false, ['verify']);
  } catch {
    throw new TransparencyLogError('unsupported', 'this environment cannot check Ed25519 signatures (WebCrypto)');
  }
  if (signature.length !== 64) return false;
  return crypto.subtle.verify({ name: 'Ed25519' }, key, signature, message);
}

/**
 * Verifies a signed note against the known keys. Returns its text and the keys that signed it; throws
 * `TransparencyLogError` ('format' or 'signature') otherwise.
 */
export async function openSignedNote(note: string, verifiers: readonly NoteVerifier[]): Promise<SignedNote> {
  const { text, signatures } = splitNote(note);
  const message = utf8(text);
  const verifiedBy: NoteVerifier[] = [];
  for (const line of signatures) {
    const known = verifiers.find((v) => v.name === line.name && v.keyId === line.keyId);
    if (!known) continue; // unknown keys are ignored (witnesses, a rotated key)
    if (!(await ed25519Verify(known.publicKey, line.signature, message))) {
      throw new TransparencyLogError('signature', `the signature of ${known.name} on the note does not verify`);
    }
    if (!verifiedBy.includes(known)) verifiedBy.push(known);
  }
  if (verifiedBy.length === 0) throw new TransparencyLogError('signature', 'the note carries no signature of the log key');
  return { text, verifiedBy };
}

