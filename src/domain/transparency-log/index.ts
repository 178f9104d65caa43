/**
 * The public transparency log of certificates (DECISIONS 14, docs/transparency-log.md): a small library
 * with one job (entries appended in the certificate's transaction, a sequencer that integrates them into an
 * RFC 6962 tree, writes C2SP tiles and signs C2SP checkpoints) and the certificate personality around it.
 *
 * @example
 * const log = openTransparencyLog({ db, storage, masterKey, publicBaseUrl, sequencerId: 'host/123' });
 * log.sequencer.start();            // serve: one sequencer leads across every instance
 * await log.verifierKey();          // 'certdesk.example/log+1a2b3c4d+AaBb…'
 */
import type { Logger } from 'pino';
import type { Db } from '../../storage/database.js';
import type { ObjectStorage } from '../../storage/object-storage/object-storage.js';
import { ensureLogSigner, logOrigin } from './log-key.js';
import { LogSequencer, type SequencerOptions } from './sequencer.js';
import { verifierKey as verifierKeyOf, type NoteSigner } from './signed-note.js';

export { logCertificateIssued, logCertificateRevoked, logCertificatesIssued, transparencyLogObject } from './certificate-log.js';
export { certificateEntry, certificateSha256, entryBundle } from './entries.js';
export { logOrigin, readVerifierKey } from './log-key.js';
export { CHECKPOINT_CONTENT_TYPE, CHECKPOINT_KEY, LOG_OBJECT_PREFIX, LogSequencer, TILE_CONTENT_TYPE, type RoundResult } from './sequencer.js';
export { parseTilePath, tilePath, TILE_WIDTH, type TileCoordinate } from './tile-path.js';
export { openCheckpoint, verifierKey, type Checkpoint, type NoteSigner } from './signed-note.js';
export { inclusionProof, leafHash, rootOf, verifyInclusion } from './merkle.js';

export interface TransparencyLogOptions extends Pick<SequencerOptions, 'session' | 'exclusive' | 'leaseMs' | 'pollMs' | 'batchSize' | 'onPublished'> {
  db: Db;
  storage: ObjectStorage;
  masterKey: string | null;
  publicBaseUrl: string;
  sequencerId: string;
  log?: Pick<Logger, 'info' | 'warn' | 'error'>;
}

export interface TransparencyLog {
  /** The origin a new log gets from the configuration (the stored key's name wins once it exists). */
  readonly configuredOrigin: string;
  /** The log's signer, its key made on first use. */
  signer(): Promise<NoteSigner>;
  /** `<name>+<key id>+<base64(0x01 || key)>` (`GET /log/key`, `certdesk log key`). */
  verifierKey(): Promise<string>;
  readonly sequencer: LogSequencer;
}

export function openTransparencyLog(options: TransparencyLogOptions): TransparencyLog {
  const configuredOrigin = logOrigin(options.publicBaseUrl);
  let signer: Promise<NoteSigner> | null = null;
  const getSigner = () => {
    signer ??= ensureLogSigner(options.db, { masterKey: options.masterKey, origin: configuredOrigin }).then(
      (s) => {
        if (s.name !== configuredOrigin) {
          options.log?.warn({ origin: s.name, configured: configuredOrigin }, 'the transparency log keeps the origin it was created with, not the one PUBLIC_BASE_URL gives now');
        }
        return s;
      },
      (err: unknown) => {
        signer = null; // a failed read (database outage) is tried again on the next use
        throw err;
      },
    );
    return signer;
  };
  const sequencer = new LogSequencer({ ...options, signer: getSigner, log: options.log });
  return {
    configuredOrigin,
    signer: getSigner,
    verifierKey: async () => {
      const s = await getSigner();
      return verifierKeyOf(s.name, s.publicKey);
    },
    sequencer,
  };
}
