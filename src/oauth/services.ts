/** What the token endpoint and bearer verification share, built once per application. */
import type { TokenSettings } from './access-token.js';
import type { ClientAccessCache } from './client-access-cache.js';
import type { KeyStore } from './keys/key-store.js';
import type { LastUsedRecorder } from './last-used.js';
import type { VerifiedTokenCache } from './bearer/verified-token-cache.js';
import type { FailureLimiter } from '../rate-limit/index.js';

export interface OAuthServices {
  tokens: TokenSettings;
  keys: KeyStore;
  clients: ClientAccessCache;
  /** The token endpoint's brute-force guard (built by the application, shared store). */
  limiter: FailureLimiter;
  lastUsed: LastUsedRecorder;
  /** Tokens already verified, until they expire. */
  verifiedTokens: VerifiedTokenCache;
}
