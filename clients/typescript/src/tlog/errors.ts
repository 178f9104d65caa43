/**
 * One error class for everything the transparency-log verifier refuses, with a machine-readable reason
 * (callers show their own words for it; `message` is a plain English sentence).
 */
export type TransparencyLogFailure =
  /** The verifier key string is malformed. */
  | 'key'
  /** A signed note or checkpoint is malformed. */
  | 'format'
  /** No signature of the log's key on the note, or one that does not verify. */
  | 'signature'
  /** The checkpoint is of another log (origin). */
  | 'origin'
  /** An inclusion proof does not lead to the checkpoint's root. */
  | 'inclusion'
  /** Two checkpoints, or a checkpoint and the tiles, do not describe one append-only tree. */
  | 'consistency'
  /** The entry is not the one this certificate must have. */
  | 'entry'
  /** The certificate is not in the log although it was issued (or revoked) more than the grace period ago. */
  | 'missing'
  /** Tiles or bundles disagree with each other or with the checkpoint. */
  | 'audit'
  /** The log could not be read (network, HTTP status). */
  | 'unavailable'
  /** This environment's WebCrypto has no Ed25519 (an old browser). */
  | 'unsupported';

export class TransparencyLogError extends Error {
  constructor(
    readonly reason: TransparencyLogFailure,
    message: string,
  ) {
    super(message);
    this.name = 'TransparencyLogError';
  }
}
