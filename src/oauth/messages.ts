/**
 * The catalogue keys of every text the token service and bearer verification show, named by what
 * happened. The texts themselves (en, fr, de, es, ja) live in the shared catalogue `src/i18n/`.
 */
import { translate, type MessageKey, type MessageVars } from '../i18n/index.js';

export const oauthMessages = {
  contentType: 'oauth.content_type',
  malformedBody: 'oauth.malformed_body',
  duplicateParameter: 'oauth.duplicate_parameter',
  grantTypeMissing: 'oauth.grant_type_missing',
  grantTypeUnsupported: 'oauth.unsupported_grant_type',
  twoAuthMethods: 'oauth.two_auth_methods',
  basicMalformed: 'oauth.basic_malformed',
  authSchemeUnsupported: 'oauth.unsupported_auth_method',
  clientAuthMissing: 'oauth.client_auth_missing',
  clientAuthFailed: 'oauth.invalid_client',
  scopeInvalid: 'oauth.invalid_scope',
  tooManyAttempts: 'oauth.too_many_attempts',
  repeatedHeader: 'errors.duplicate_header',
  serverError: 'errors.internal',
  temporarilyUnavailable: 'errors.temporarily_unavailable',
  methodNotAllowed: 'errors.method_not_allowed',
  notAuthenticated: 'errors.not_authenticated',
  tokenInvalid: 'errors.invalid_token',
  tokenExpired: 'errors.token_expired',
  tokenRevoked: 'errors.token_revoked',
  insufficientScope: 'errors.insufficient_scope',
} as const satisfies Record<string, MessageKey>;

export type OAuthMessageKey = (typeof oauthMessages)[keyof typeof oauthMessages];

export type MessageParams = MessageVars;

/**
 * The English text of a message. Header values (RFC 6750 `error_description`) must be ASCII, so the
 * `WWW-Authenticate` header always carries this rendering, whatever the body's language.
 */
export function englishMessage(key: OAuthMessageKey, params: MessageParams = {}): string {
  return translate('en', key, params);
}
