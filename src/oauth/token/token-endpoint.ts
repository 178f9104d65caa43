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

export const TOKEN_PATH = '/oauth2/token';

/** The parameters this endpoint understands; others are ignored (RFC 6749 3.2), repeats of these refused. */
const KNOWN_PARAMETERS = ['grant_type', 'scope', 'client_id', 'client_secret'] as const;

const FORM_TYPE = 'application/x-www-form-urlencoded';

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
  if (grantType !== 'client_credentials') throw new UnsupportedGrantType(oauthMessages.grantTypeUnsupported);
}

export const tokenEndpoint: FastifyPluginAsync<{ services: OAuthServices }> = async (app, { services }) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(FORM_TYPE, { parseAs: 'string', bodyLimit: 16 * 1024 }, (_req, body, done) => done(null, body));
  // Any other media type reaches the handler as a marker, so the refusal is an RFC body, not a 415.
  app.addContentTypeParser('*', (_req, _payload, done) => done(null, NOT_A_FORM));

  app.addHook('onRequest', async (_request, reply) => noCache(reply));
  app.setErrorHandler((err, request, reply) => sendOAuthError(err, request, reply));

  app.post(TOKEN_PATH, async (request, reply) => {
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
    reply.type('application/json; charset=utf-8');
    return {
      access_token: token.accessToken,
      token_type: 'Bearer',
      expires_in: token.expiresIn,
      ...(granted.differsFromRequest ? { scope: granted.scopes.join(' ') } : {}),
    };
  });

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
