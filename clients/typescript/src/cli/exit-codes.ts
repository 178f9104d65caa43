/**
 * Exit codes of `certdesk-client` (documented in docs/client.md): scripts may rely on them.
 * 0 success · 1 unexpected failure · 2 usage or missing credentials · 3 authentication refused (401,
 * invalid client) · 4 permission denied (403) · 5 not found (404) · 6 request refused (400, 409, 413,
 * 422) · 7 server busy or failing after retries (429, 5xx) · 8 no answer (connection lost, timeout) ·
 * 9 verification failed (certificate signature or file hash, the transparency log's signature, proofs or
 * consistency, a certificate missing from the log) · 10 `--wait` ended in a state that is not
 * `Human Certified` or `Reviewed`.
 */
import { CertdeskConnectionError, CertdeskError } from '../errors.js';
import { TransparencyLogError } from '../tlog/errors.js';
import { MissingCredentialsError } from './config.js';

export const EXIT = {
  ok: 0,
  unexpected: 1,
  usage: 2,
  authentication: 3,
  permission: 4,
  notFound: 5,
  refused: 6,
  server: 7,
  connection: 8,
  verification: 9,
  orderNotCertified: 10,
} as const;

export class CliFailure extends Error {
  constructor(message: string, readonly exitCode: number) {
    super(message);
  }
}

export function exitCodeOf(error: unknown): number {
  if (error instanceof CliFailure) return error.exitCode;
  if (error instanceof MissingCredentialsError) return EXIT.usage;
  if (error instanceof TransparencyLogError) return error.reason === 'unavailable' ? EXIT.connection : EXIT.verification;
  if (error instanceof CertdeskConnectionError) return EXIT.connection;
  if (error instanceof CertdeskError) {
    if (error.status === 401) return EXIT.authentication;
    if (error.status === 403) return EXIT.permission;
    if (error.status === 404) return EXIT.notFound;
    if (error.status === 429 || error.status >= 500) return EXIT.server;
    if (error.status >= 400) return EXIT.refused;
  }
  return EXIT.unexpected;
}

/** The one line printed on stderr for a failure (with the request id when the server gave one). */
export function failureLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const requestId = error instanceof CertdeskError && error.requestId ? ` (request id ${error.requestId})` : '';
  return `certdesk-client: ${message.replace(/\s*\n\s*/g, ' ')}${requestId}`;
}
