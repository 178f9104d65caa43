/**
 * Access tokens: JWTs per RFC 9068, signed ES256 by the service's newest active key, and their
 * verification, which pins the algorithm and checks `typ`, `iss`, `aud`, `exp`/`nbf`, an `iat` not in the future
 * and the key id.
 */
import { randomUUID } from 'node:crypto';
import { errors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import type { KeyStore } from './keys/key-store.js';
import { SIGNING_ALG } from './keys/signing-keys.js';

export const ACCESS_TOKEN_TYP = 'at+jwt';

/** Tolerated clock difference between the host that signed a token and the one verifying it. */
export const CLOCK_TOLERANCE_SECONDS = 30;

export interface TokenSettings {
  issuer: string;
  audience: string;
  ttlSeconds: number;
}

export interface IssuedToken {
  accessToken: string;
  expiresIn: number;
}

/** Signs an access token for a client with the given (already validated) scopes. */
export async function issueAccessToken(keys: KeyStore, settings: TokenSettings, clientId: string, scopes: readonly string[]): Promise<IssuedToken> {
  const { kid, privateKey } = keys.current().signing;
  const now = Math.floor(Date.now() / 1000);
  const accessToken = await new SignJWT({ client_id: clientId, scope: scopes.join(' ') })
    .setProtectedHeader({ alg: SIGNING_ALG, typ: ACCESS_TOKEN_TYP, kid })
    .setIssuer(settings.issuer)
    .setAudience(settings.audience)
    .setSubject(clientId)
    .setIssuedAt(now)
    .setExpirationTime(now + settings.ttlSeconds)
    .setJti(randomUUID())
    .sign(privateKey);
  return { accessToken, expiresIn: settings.ttlSeconds };
}

export interface VerifiedToken {
  clientId: string;
  scopes: string[];
  payload: JWTPayload;
}

/** Why a token was refused: `expired` and `invalid` map to different (translated) descriptions. */
export class TokenRejected extends Error {
  override name = 'TokenRejected';
  constructor(readonly reason: 'invalid' | 'expired') {
    super(reason);
  }
}

/** Verifies an access token issued by this service; throws TokenRejected. */
export async function verifyAccessToken(keys: KeyStore, settings: Omit<TokenSettings, 'ttlSeconds'>, token: string): Promise<VerifiedToken> {
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(
      token,
      async (header) => {
        // Only the service's own keys, by kid: a token naming no kid or a foreign one is refused.
        const key = typeof header.kid === 'string' ? await keys.verificationKey(header.kid) : undefined;
        if (!key) throw new errors.JWKSNoMatchingKey();
        return key;
      },
      {
        algorithms: [SIGNING_ALG],
        typ: ACCESS_TOKEN_TYP,
        issuer: settings.issuer,
        audience: settings.audience,
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        requiredClaims: ['exp', 'iat', 'sub', 'client_id', 'jti'],
      },
    ));
  } catch (err) {
    throw new TokenRejected(err instanceof errors.JWTExpired ? 'expired' : 'invalid');
  }
  // jose checks `iat` only against a maximum age; a token issued in the future (beyond the clock
  // tolerance) was not issued by a sane clock of ours: refused like any other invalid token.
  if (typeof payload.iat !== 'number' || payload.iat > Math.floor(Date.now() / 1000) + CLOCK_TOLERANCE_SECONDS) throw new TokenRejected('invalid');
  const clientId = payload.client_id;
  if (typeof clientId !== 'string' || clientId !== payload.sub) throw new TokenRejected('invalid');
  const scope = payload.scope ?? '';
  if (typeof scope !== 'string') throw new TokenRejected('invalid');
  return { clientId, scopes: scope.split(' ').filter(Boolean), payload };
}
