/**
 * `POST /oauth2/token`, client credentials grant, as a chain of small named steps:
 *
 *   noCache → parseBody → rejectDuplicates → clientAuth → checkGrantType → validateScope → grant
 *
 * An encapsulated plugin: its content-type parsers (the raw form string only) and its error handler
 * (RFC 6749 5.2 bodies) apply to this route alone.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { issueAccessToken } from '../access-token.js';
import { InvalidRequest, sendOAuthError, UnsupportedGrantType } from '../errors.js';
import { localizeFor } from '../localize.js';
import { oauthMessages } from '../messages.js';
import type { OAuthServices } from '../services.js';
import { authenticateClient, presentedCredentials } from './client-authentication.js';
import { firstRepeated, MalformedFormError, parseForm, single, type FormParameters } from './form-body.js';
import { grantScope } from './scope.js';
import { CLIENT_BASIC_SCHEME, FORM_MEDIA_TYPE, GRANT_TYPES, TOKEN_PARAMETERS, TokenRequestForm, tokenResponses } from './token-schema.js';

export const TOKEN_PATH = '/oauth2/token';

/** The parameters this endpoint understands (the documented form's fields); repeats of these are refused. */
const KNOWN_PARAMETERS = TOKEN_PARAMETERS;

const FORM_TYPE = FORM_MEDIA_TYPE;

/** Raw body marker for anything that is not a form: refused by parseBody with an RFC error. */
const NOT_A_FORM = Symbol('not a form');

function noCache(reply: FastifyReply): void {
  reply.header('Cache-Control', 'no-store').header('Pragma', 'no-cache');
}

function parseBody(request: FastifyRequest): FormParameters {
  const body = request.body;
  if (typeof body !== 'string') throw new InvalidRequest(oauthMessages.contentType);
  try {
    return parseForm(body);
  } catch (err) {
    if (err instanceof MalformedFormError) throw new InvalidRequest(oauthMessages.malformedBody);
    throw err;
  }
}

function rejectDuplicates(params: FormParameters): void {
  const repeated = firstRepeated(params, KNOWN_PARAMETERS);
  if (repeated) throw new InvalidRequest(oauthMessages.duplicateParameter, { name: repeated });
}

function checkGrantType(params: FormParameters): void {
  const grantType = single(params, 'grant_type');
  if (grantType === undefined) throw new InvalidRequest(oauthMessages.grantTypeMissing);
  if (!(GRANT_TYPES as readonly string[]).includes(grantType)) throw new UnsupportedGrantType(oauthMessages.grantTypeUnsupported);
}

export const tokenEndpoint: FastifyPluginAsync<{ services: OAuthServices }> = async (app, { services }) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(FORM_TYPE, { parseAs: 'string', bodyLimit: 16 * 1024 }, (_req, body, done) => done(null, body));
  // Any other media type reaches the handler as a marker, so the refusal is an RFC body, not a 415.
  app.addContentTypeParser('*', (_req, _payload, done) => done(null, NOT_A_FORM));

  app.addHook('onRequest', async (_request, reply) => noCache(reply));
  app.setErrorHandler((err, request, reply) => sendOAuthError(err, request, reply));

  app.post(
    TOKEN_PATH,
    {
      config: { operationName: 'issue_token' },
      schema: {
        summary: 'Issue Access Token',
        description:
          'OAuth 2.0 client credentials grant (RFC 6749 4.4). The client authenticates with HTTP Basic ' +
          '(`client_secret_basic`, RFC 6749 2.3.1) or with `client_id` and `client_secret` in the form ' +
          '(`client_secret_post`), never both. Answers carry `Cache-Control: no-store`. By default ten failed ' +
          'authentications for a client id or an address within five minutes answer 429 with `Retry-After`.',
        tags: ['oauth2'],
        consumes: [FORM_TYPE],
        body: TokenRequestForm,
        // HTTP Basic, or no header with the credentials in the form.
        security: [{ [CLIENT_BASIC_SCHEME]: [] }, {}],
        response: tokenResponses,
      },
      // The form is decoded by this endpoint's strict parser (repeats, empty values, RFC 6749 error
      // bodies) in the handler's steps below; `body` describes it for the document only.
      validatorCompiler: () => () => true,
    },
    async (request, reply) => {
    const params = parseBody(request);
    rejectDuplicates(params);
    const client = await authenticateClient(presentedCredentials(request.headers.authorization, params), {
      clients: services.clients,
      limiter: services.limiter,
      address: request.ip,
    });
    checkGrantType(params);
    const requested = single(params, 'scope');
    const granted = grantScope(requested, client.scopes);
    const token = await issueAccessToken(services.keys, services.tokens, client.clientId, granted.scopes);
    services.lastUsed.record(client.clientId);
    request.server.metrics?.recordTokenIssued();
    reply.type('application/json; charset=utf-8');
    return {
      access_token: token.accessToken,
      token_type: 'Bearer',
      expires_in: token.expiresIn,
      ...(granted.differsFromRequest ? { scope: granted.scopes.join(' ') } : {}),
    };
    },
  );

  // Other methods on the token path: 405 with Allow, still no-store.
  app.route({
    method: ['GET', 'PUT', 'PATCH', 'DELETE'],
    url: TOKEN_PATH,
    // Not part of the API description: these exist only to answer 405.
    schema: { hide: true },
    handler: async (request, reply) => {
      reply.code(405).header('Allow', 'POST');
      return { detail: localizeFor(request, reply, oauthMessages.methodNotAllowed) };
    },
  });
};
