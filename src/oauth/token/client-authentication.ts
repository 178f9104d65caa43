/**
 * Client authentication, in one place: `client_secret_basic` (RFC 6749 2.3.1, credentials
 * form-urlencoded before base64 per Appendix B) or `client_secret_post`, never both; constant-time
 * secret check; the brute-force guard; revoked clients and clients whose user left are refused.
 */
import type { ClientAccessRecord } from '../../domain/users/user-access.repository.js';
import { hashClientSecret, verifyClientSecret } from '../../domain/api-clients/client-credentials.js';
import { InvalidClient, InvalidRequest, TooManyFailedAttempts } from '../errors.js';
import type { ClientAccessCache } from '../client-access-cache.js';
import { oauthMessages } from '../messages.js';
import type { FailureLimiter } from '../../rate-limit/index.js';
import { decodeFormComponent, MalformedFormError, single, type FormParameters } from './form-body.js';

export type ClientAuthMethod = 'client_secret_basic' | 'client_secret_post';

export const CLIENT_AUTH_METHODS: readonly ClientAuthMethod[] = ['client_secret_basic', 'client_secret_post'];

export interface PresentedCredentials {
  method: ClientAuthMethod;
  clientId: string;
  clientSecret: string;
}

// Compared against when the client id is unknown, so that unknown and known ids take the same time.
const UNKNOWN_CLIENT_HASH = hashClientSecret('certdesk: no such client');

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** Decodes `Basic <base64(urlencode(id):urlencode(secret))>`; null when the header is not Basic. */
export function decodeBasicCredentials(authorization: string): { clientId: string; clientSecret: string } | null {
  const match = /^Basic +(\S+) *$/i.exec(authorization);
  if (!match) {
    if (/^Basic(\s|$)/i.test(authorization)) throw new InvalidRequest(oauthMessages.basicMalformed);
    return null;
  }
  const encoded = match[1]!;
  if (!BASE64.test(encoded)) throw new InvalidRequest(oauthMessages.basicMalformed);
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon === -1) throw new InvalidRequest(oauthMessages.basicMalformed);
  try {
    return { clientId: decodeFormComponent(decoded.slice(0, colon)), clientSecret: decodeFormComponent(decoded.slice(colon + 1)) };
  } catch (err) {
    if (err instanceof MalformedFormError) throw new InvalidRequest(oauthMessages.basicMalformed);
    throw err;
  }
}

/**
 * The credentials the request presents. A request with Basic may repeat its client_id in the body
 * (RFC 6749 allows client_id there) but not a client_secret; any other Authorization scheme is an
 * unsupported authentication method (invalid_client, RFC 6749 5.2).
 */
export function presentedCredentials(authorization: string | undefined, params: FormParameters): PresentedCredentials {
  const bodyId = single(params, 'client_id');
  const bodySecret = single(params, 'client_secret');
  if (authorization !== undefined && authorization !== '') {
    const basic = decodeBasicCredentials(authorization);
    if (!basic) throw new InvalidClient(oauthMessages.authSchemeUnsupported, { basic: true });
    if (bodySecret !== undefined || (bodyId !== undefined && bodyId !== basic.clientId)) {
      throw new InvalidRequest(oauthMessages.twoAuthMethods);
    }
    if (basic.clientId === '' || basic.clientSecret === '') throw new InvalidClient(oauthMessages.clientAuthFailed, { basic: true });
    return { method: 'client_secret_basic', ...basic };
  }
  if (bodyId === undefined || bodySecret === undefined) throw new InvalidClient(oauthMessages.clientAuthMissing, { basic: false });
  return { method: 'client_secret_post', clientId: bodyId, clientSecret: bodySecret };
}

export interface AuthenticateOptions {
  clients: ClientAccessCache;
  limiter: FailureLimiter;
  /** Source address of the request (after trusted proxies). */
  address: string;
}

/** Checks the presented credentials; returns the active client and its user, or throws. */
export async function authenticateClient(credentials: PresentedCredentials, options: AuthenticateOptions): Promise<ClientAccessRecord> {
  const basic = credentials.method === 'client_secret_basic';
  const client = await options.clients.get(credentials.clientId);
  // Known client ids are limited per (client id, address); unknown ones per address (rate-limit/).
  const attempt = { subject: client ? credentials.clientId : null, address: options.address };
  const verdict = await options.limiter.check(attempt);
  if (verdict.blocked) throw new TooManyFailedAttempts(verdict.retryAfterSeconds);
  const secretOk = verifyClientSecret(credentials.clientSecret, client?.secretHash ?? UNKNOWN_CLIENT_HASH);
  if (!client || !secretOk) {
    await options.limiter.recordFailure(attempt);
    throw new InvalidClient(oauthMessages.clientAuthFailed, { basic });
  }
  await options.limiter.recordSuccess(attempt, verdict);
  // The right secret of a revoked client, or of a user who left, is not a guessing attempt: no count.
  if (client.revoked || !client.userIsMember) throw new InvalidClient(oauthMessages.clientAuthFailed, { basic });
  return client;
}
