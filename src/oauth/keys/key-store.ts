/**
 * The running instance's view of the signing keys: loaded once at start, refreshed periodically so a
 * rotation done by the CLI (or another instance) is picked up, and refreshed early when a token names a
 * key this instance has not seen yet.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../storage/database.js';
import { isDatabaseUnavailable } from '../../storage/database-availability.js';
import { ensureSigningKey, loadKeyRing, type KeyRing } from './signing-keys.js';

export interface KeyStoreOptions {
  db: Db;
  masterKey: string | null;
  accessTokenTtlSeconds: number;
  env: string;
  log: FastifyBaseLogger;
  /** How often keys are re-read from the database. Default 60 s. */
  refreshIntervalMs?: number;
  /** Minimum time between refreshes caused by an unknown kid (a flood of forged kids costs one query). */
  missRefreshIntervalMs?: number;
}

export class KeyStore {
  private ring: KeyRing | null = null;
  private timer: NodeJS.Timeout | null = null;
  private lastMissRefresh = 0;
  private refreshing: Promise<void> | null = null;

  constructor(private readonly options: KeyStoreOptions) {}

  /** Creates the first key if needed, loads the keys and starts the periodic refresh. */
  async start(): Promise<void> {
    const { masterKey, env, log, db } = this.options;
    if (!masterKey && env !== 'development' && env !== 'test') {
      log.warn(
        { security: true },
        '!!! MASTER_KEY is not set: token signing keys are stored UNENCRYPTED in the database. Set MASTER_KEY (32+ characters) and run `certdesk keys rotate`. !!!',
      );
    }
    const created = await ensureSigningKey(db, masterKey);
    if (created) log.info({ kid: created }, 'created the first token signing key');
    await this.refresh();
    if (masterKey && this.ring && !this.ring.signingKeyEncrypted) {
      log.warn({ kid: this.ring.signing.kid }, 'the signing key is stored unencrypted; run `certdesk keys rotate` to replace it with an encrypted one');
    }
    const interval = this.options.refreshIntervalMs ?? 60_000;
    this.timer = setInterval(() => {
      this.refresh().catch((err: unknown) => this.logRefreshFailure(err, 'signing key refresh failed; keeping the previous keys'));
    }, interval);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Re-reads the keys; concurrent callers share one read. */
  async refresh(): Promise<void> {
    this.refreshing ??= loadKeyRing(this.options.db, this.options)
      .then((ring) => {
        this.ring = ring;
      })
      .finally(() => {
        this.refreshing = null;
      });
    return this.refreshing;
  }

  /** The current key ring; throws before start(). */
  current(): KeyRing {
    if (!this.ring) throw new Error('KeyStore used before start()');
    return this.ring;
  }

  /** The public key with this kid among the service's own keys, refreshing once if it is unknown. */
  async verificationKey(kid: string): Promise<CryptoKey | undefined> {
    const known = this.current().verification.get(kid);
    if (known) return known;
    const now = Date.now();
    if (now - this.lastMissRefresh < (this.options.missRefreshIntervalMs ?? 5_000)) return undefined;
    this.lastMissRefresh = now;
    try {
      await this.refresh();
    } catch (err) {
      this.logRefreshFailure(err, 'signing key refresh failed');
      return undefined;
    }
    return this.current().verification.get(kid);
  }

  /**
   * A refresh that fails because the database cannot be reached is part of an outage, which is logged
   * once when it starts (http/plugins/database-outage.ts): no stack trace per refresh during it.
   */
  private logRefreshFailure(err: unknown, msg: string): void {
    if (isDatabaseUnavailable(err)) return;
    this.options.log.error({ err }, msg);
  }
}
