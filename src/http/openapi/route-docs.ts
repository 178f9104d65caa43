/**
 * What every API route declares for its OpenAPI description: security (OAuth 2.0 client credentials,
 * read scope) and the error responses it can give, all referencing the named components.
 *
 * @example
 * app.get('/v1/things', {
 *   config: { operationName: 'get_things' },
 *   schema: { tags: ['things'], security: readSecurity(), response: apiResponses(Type.Array(ThingRef)) },
 * }, handler);
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { ErrorDetail, HTTPValidationError, SCOPES } from '../../contract/schemas.js';

/** Name of the OAuth 2.0 security scheme in the document. */
export const SECURITY_SCHEME = 'OAuth2';

/** A reference to a named component (registered with `addSchema`) that keeps the component's static type. */
export function ref<T extends TSchema>(schema: T) {
  if (!schema.$id) throw new Error('ref() needs a schema with an $id');
  return Type.Unsafe<Static<T>>(Type.Ref(schema.$id));
}

/** The security requirement of a read route. */
export function readSecurity(): Array<Record<string, string[]>> {
  return [{ [SECURITY_SCHEME]: [SCOPES.read] }];
}

/** 200 with the given body, plus the error responses every authenticated API route can give. */
export function apiResponses(ok: TSchema, { notFound = true }: { notFound?: boolean } = {}): Record<string, TSchema> {
  const detail = (description: string) => Type.Unsafe<Static<typeof ErrorDetail>>({ ...Type.Ref(ErrorDetail.$id!), description });
  return {
    200: ok,
    401: detail('Missing, invalid or expired access token.'),
    403: detail('The access token does not grant the required scope.'),
    ...(notFound ? { 404: detail('Not found, or not visible to the caller.') } : {}),
    422: Type.Unsafe<Static<typeof HTTPValidationError>>({ ...Type.Ref(HTTPValidationError.$id!), description: 'Validation Error' }),
  };
}
