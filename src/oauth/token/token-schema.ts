/**
 * The token endpoint's request and responses as JSON Schemas (TypeBox). They document `POST /oauth2/token`
 * in the OpenAPI document, serialize its answers, and drive the endpoint itself: the parameters it
 * reads are this form's properties, the grant types it accepts are `grant_type`'s enum, and every error
 * code it can answer is `OAuthTokenError.error`'s enum.
 */
import { Type, type Static } from '@sinclair/typebox';
import { ALL_SCOPES } from '../../contract/schemas.js';

export const FORM_MEDIA_TYPE = 'application/x-www-form-urlencoded';

/** Name of the HTTP Basic client authentication scheme in the document. */
export const CLIENT_BASIC_SCHEME = 'ClientBasic';

export const GRANT_TYPES = ['client_credentials'] as const;

/** RFC 6749 5.2 error codes this endpoint answers. */
export const OAUTH_ERROR_CODES = ['invalid_request', 'invalid_client', 'unsupported_grant_type', 'invalid_scope', 'server_error', 'temporarily_unavailable'] as const;
export type OAuthErrorCode = (typeof OAUTH_ERROR_CODES)[number];

export const TokenRequestForm = Type.Object(
  {
    grant_type: Type.Unsafe<(typeof GRANT_TYPES)[number]>({
      type: 'string',
      enum: [...GRANT_TYPES],
      description: 'Always `client_credentials` (RFC 6749 4.4).',
    }),
    scope: Type.Optional(
      Type.String({ description: `Space-separated scopes, a subset of the client's (${ALL_SCOPES.join(', ')}). Omitted: every scope of the client.` }),
    ),
    client_id: Type.Optional(Type.String({ description: 'Client authentication in the body (`client_secret_post`), with `client_secret`. Not together with HTTP Basic.' })),
    client_secret: Type.Optional(Type.String({ description: 'Secret of `client_id` (`client_secret_post`).', format: 'password' })),
  },
  {
    title: 'TokenRequest',
    description:
      'Form fields (RFC 6749 4.4.2). Each field at most once; an empty value counts as omitted; unknown fields are ignored.',
  },
);
export type TokenRequestFormT = Static<typeof TokenRequestForm>;

/** The parameters the endpoint reads (others are ignored, RFC 6749 3.2). */
export const TOKEN_PARAMETERS = Object.keys(TokenRequestForm.properties) as Array<keyof TokenRequestFormT>;

const noStore = {
  'Cache-Control': { type: 'string', enum: ['no-store'], description: 'Always `no-store` (RFC 6749 5.1).' },
  Pragma: { type: 'string', enum: ['no-cache'], description: 'Always `no-cache`.' },
};

export const TokenResponse = Type.Object(
  {
    access_token: Type.String({ description: 'RFC 9068 JWT access token (ES256), sent as `Authorization: Bearer <token>`.' }),
    token_type: Type.Unsafe<'Bearer'>({ type: 'string', enum: ['Bearer'] }),
    expires_in: Type.Integer({ minimum: 1, description: 'Lifetime of the token in seconds.' }),
    scope: Type.Optional(Type.String({ description: 'Granted scopes, present only when they differ from the request (RFC 6749 5.1).' })),
  },
  { title: 'TokenResponse', additionalProperties: false, description: 'Successful token response (RFC 6749 5.1).' },
);
export type TokenResponseT = Static<typeof TokenResponse>;

export const OAuthTokenError = Type.Object(
  {
    error: Type.Unsafe<OAuthErrorCode>({ type: 'string', enum: [...OAUTH_ERROR_CODES] }),
    error_description: Type.String({ description: 'Human-readable explanation, in the negotiated language.' }),
  },
  { title: 'OAuthTokenError', additionalProperties: false, description: 'Error response (RFC 6749 5.2).' },
);

type ResponseSpec = Record<string, unknown>;

const errorResponse = (description: string, headers: Record<string, unknown> = {}): ResponseSpec => ({
  ...OAuthTokenError,
  description,
  headers: { ...noStore, ...headers },
});

/** Route responses: bodies (serialized with these schemas), descriptions and headers for the document. */
export const tokenResponses: Record<number, ResponseSpec> = {
  200: { ...TokenResponse, description: 'The access token.', headers: noStore },
  400: errorResponse(
    '`invalid_request` (missing or repeated parameter, not a form, malformed body, two authentication methods), ' +
      '`unsupported_grant_type`, or `invalid_scope` (a scope the client does not have).',
  ),
  401: errorResponse('`invalid_client`: unknown client, wrong secret, revoked client, or no client authentication.', {
    'WWW-Authenticate': { type: 'string', description: '`Basic realm="certdesk"` when the client used HTTP Basic.' },
  }),
  429: errorResponse('`invalid_client`: too many failed authentications for this client id or address; retry later.', {
    'Retry-After': { type: 'integer', minimum: 1, description: 'Seconds to wait before trying again.' },
  }),
  500: errorResponse('`server_error`: an unexpected failure (nothing internal is disclosed).'),
  503: errorResponse('`temporarily_unavailable`: the database cannot be reached right now; retry later.', {
    'Retry-After': { type: 'integer', minimum: 1, description: 'Seconds to wait before trying again.' },
  }),
};
