/**
 * certdesk's log entries: UTF-8 JSON canonical per RFC 8785 (JCS), one per event, naming the certificate
 * only by the SHA-256 of its compact JWS:
 * `{"at":"<RFC 3339 UTC, milliseconds>","certificate_sha256":"<64 hex>","type":"certificate.issued"}`
 * (or `certificate.revoked`). With only ASCII strings of these shapes, JCS is exactly this key order with
 * JSON.stringify's escaping, so the canonical text is rebuilt and compared byte for byte.
 */
import { sha256, toHex, utf8 } from './bytes.js';
import { TransparencyLogError } from './errors.js';

export type LogEntryType = 'certificate.issued' | 'certificate.revoked';

export interface LogEntry {
  at: string;
  certificate_sha256: string;
  type: LogEntryType;
}

const AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const SHA256_HEX = /^[0-9a-f]{64}$/;

/** The canonical entry text of an event. */
export function canonicalEntry(entry: LogEntry): string {
  return `{"at":${JSON.stringify(entry.at)},"certificate_sha256":${JSON.stringify(entry.certificate_sha256)},"type":${JSON.stringify(entry.type)}}`;
}

/** Reads an entry; throws `TransparencyLogError('entry')` unless it is a canonical certdesk entry. */
export function parseEntry(text: string): LogEntry {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new TransparencyLogError('entry', 'the log entry is not JSON');
  }
  const e = value as Partial<LogEntry> | null;
  if (
    !e ||
    typeof e !== 'object' ||
    typeof e.at !== 'string' ||
    !AT.test(e.at) ||
    Number.isNaN(Date.parse(e.at)) ||
    typeof e.certificate_sha256 !== 'string' ||
    !SHA256_HEX.test(e.certificate_sha256) ||
    (e.type !== 'certificate.issued' && e.type !== 'certificate.revoked')
  ) {
    throw new TransparencyLogError('entry', 'the log entry is not a certdesk certificate event');
  }
  const entry: LogEntry = { at: e.at, certificate_sha256: e.certificate_sha256, type: e.type };
  if (canonicalEntry(entry) !== text) throw new TransparencyLogError('entry', 'the log entry is not canonical JSON (RFC 8785) or has other fields');
  return entry;
}

/** Lowercase hex SHA-256 of the compact JWS's characters: how the log names a certificate. */
export async function certificateSha256(jws: string): Promise<string> {
  return toHex(sha256(utf8(jws)));
}
