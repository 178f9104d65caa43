/**
 * The certificate "personality" of the log: what an entry is (DECISIONS 14) and how entries are bundled.
 * An entry is UTF-8 JSON canonical per RFC 8785 (JCS, by the `canonicalize` library written by one of its
 * authors): `{"at":"<RFC 3339 UTC, milliseconds>","certificate_sha256":"<hex SHA-256 of the compact
 * JWS>","type":"certificate.issued"|"certificate.revoked"}`. Nothing names the certificate or its
 * customer: the log is public, certificates are not enumerable.
 */
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

export type LogEntryKind = 'issued' | 'revoked';

export const ENTRY_TYPES: Record<LogEntryKind, string> = {
  issued: 'certificate.issued',
  revoked: 'certificate.revoked',
};

/** Lowercase hex SHA-256 of a certificate's compact JWS (its UTF-8 bytes). */
export function certificateSha256(jws: string): string {
  return createHash('sha256').update(jws, 'utf8').digest('hex');
}

/** The entry text of an issuance or a revocation at `at`. */
export function certificateEntry(kind: LogEntryKind, at: Date, jws: string): string {
  const text = canonicalize({ type: ENTRY_TYPES[kind], at: at.toISOString(), certificate_sha256: certificateSha256(jws) });
  if (text === undefined) throw new Error('entry cannot be canonicalized');
  return text;
}

/** Most bytes an entry may have: bundles prefix each with a big-endian uint16 length. */
export const MAX_ENTRY_BYTES = 0xffff;

/** An entry bundle (tlog-tiles): each entry as a big-endian uint16 length, then its bytes. */
export function entryBundle(entries: readonly Buffer[]): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    if (entry.length > MAX_ENTRY_BYTES) throw new RangeError(`entry of ${entry.length} bytes does not fit a bundle`);
    const length = Buffer.allocUnsafe(2);
    length.writeUInt16BE(entry.length);
    parts.push(length, entry);
  }
  return Buffer.concat(parts);
}
