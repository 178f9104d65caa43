/**
 * C2SP tlog-checkpoint: the signed note's text is `<origin>\n<tree size>\n<base64 root hash>\n[extension
 * lines]`. A checkpoint is only read after its note verified against the log key, whose name is the origin.
 */
import { fromBase64, toBase64, type Bytes } from './bytes.js';
import { TransparencyLogError } from './errors.js';
import { HASH_SIZE } from './merkle.js';
import { openSignedNote, type NoteVerifier } from './note.js';

export interface Checkpoint {
  origin: string;
  /** The number of entries (leaves) in the tree. */
  size: number;
  /** The RFC 6962 root hash of the tree of that size. */
  rootHash: Bytes;
  /** Any lines after the root hash (opaque). */
  extensions: string[];
  /** The full signed note it was read from. */
  note: string;
}

/** Reads a checkpoint's note text (no signature check: see `verifyCheckpoint`). */
export function parseCheckpointText(text: string): Omit<Checkpoint, 'note'> {
  if (!text.endsWith('\n')) throw new TransparencyLogError('format', 'the checkpoint text does not end with a newline');
  const lines = text.slice(0, -1).split('\n');
  const [origin, sizeLine, rootLine, ...extensions] = lines;
  if (!origin || sizeLine === undefined || rootLine === undefined) throw new TransparencyLogError('format', 'the checkpoint has fewer than three lines');
  if (!/^(0|[1-9][0-9]*)$/.test(sizeLine) || !Number.isSafeInteger(Number(sizeLine))) throw new TransparencyLogError('format', 'the checkpoint tree size is not a decimal number');
  const rootHash = fromBase64(rootLine);
  if (!rootHash || rootHash.length !== HASH_SIZE) throw new TransparencyLogError('format', 'the checkpoint root hash is not 32 bytes of base64');
  if (extensions.some((line) => line === '')) throw new TransparencyLogError('format', 'the checkpoint has an empty extension line');
  return { origin, size: Number(sizeLine), rootHash, extensions };
}

/**
 * Verifies a checkpoint (the full signed note) against the log key: the signature, then the format, then
 * that its origin is the key's name (DECISIONS: the log's origin names its key).
 */
export async function verifyCheckpoint(note: string, logKey: NoteVerifier): Promise<Checkpoint> {
  const { text } = await openSignedNote(note, [logKey]);
  const checkpoint = parseCheckpointText(text);
  if (checkpoint.origin !== logKey.name) throw new TransparencyLogError('origin', `the checkpoint is of the log ${checkpoint.origin}, not ${logKey.name}`);
  return { ...checkpoint, note };
}

/** The checkpoint's three mandatory lines, for display. */
export function describeCheckpoint(checkpoint: Pick<Checkpoint, 'origin' | 'size' | 'rootHash'>): string {
  return `${checkpoint.origin} size ${checkpoint.size} root ${toBase64(checkpoint.rootHash)}`;
}
