/**
 * `client.log`: the service's public transparency log (`<baseUrl>/log/`, no credentials), verified on the
 * caller's side: the log key (`/log/key`, or the one given, which a careful caller pins), the current
 * checkpoint, consistency with an older checkpoint, and a full audit.
 */
import { type Checkpoint } from './tlog/checkpoint.js';
import { auditLog, currentCheckpoint, logVerifier, proveConsistency, type AuditOptions, type AuditReport, type ConsistencyResult } from './tlog/monitor.js';
import { LogReader } from './tlog/tiles.js';

export class LogResource {
  readonly reader: LogReader;

  constructor(baseUrl: string, fetchImpl?: typeof fetch) {
    this.reader = LogReader.ofService(baseUrl, fetchImpl);
  }

  /** The verifier key string the log publishes (`/log/key`). */
  key(): Promise<string> {
    return this.reader.key();
  }

  /** The current checkpoint, its signature checked against `logKey` (default: the published key). */
  async checkpoint(logKey?: string): Promise<Checkpoint> {
    return currentCheckpoint(this.reader, await logVerifier(this.reader, logKey));
  }

  /** Proves the log grew from `oldCheckpoint` (a signed note kept earlier) without rewriting; throws `TransparencyLogError` otherwise. */
  async consistency(oldCheckpoint: string, logKey?: string): Promise<ConsistencyResult> {
    return proveConsistency(this.reader, await logVerifier(this.reader, logKey), oldCheckpoint);
  }

  /** Fetches every entry bundle and tile of the current checkpoint and recomputes the tree; throws `TransparencyLogError` on any disagreement. */
  async audit(logKey?: string, options: AuditOptions = {}): Promise<AuditReport> {
    const key = await logVerifier(this.reader, logKey);
    return auditLog(this.reader, await currentCheckpoint(this.reader, key), options);
  }
}
