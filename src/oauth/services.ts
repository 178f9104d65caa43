/** What the token endpoint and bearer verification share, built once per application. */
import type { TokenSettings } from './access-token.js';
import type { ClientAccessCache } from './client-access-cache.js';
import type { KeyStore } from './keys/key-store.js';
import type { LastUsedRecorder } from './last-used.js';
import type { VerifiedTokenCache } from './bearer/verified-token-cache.js';
import type { AuthFailureLimiter } from './rate-limit/auth-failure-limiter.js';

export interface OAuthServices {
  tokens: TokenSettings;
  keys: KeyStore;
  clients: ClientAccessCache;
  limiter: AuthFailureLimiter;
  lastUsed: LastUsedRecorder;
  /** Tokens already verified, until they expire. */
  verifiedTokens: VerifiedTokenCache;
}
