/**
 * The real application on a test database with the standard fixture, and real access tokens for each
 * fixture user obtained from the real token endpoint.
 *
 * @example
 * const api = await startApi(handle); // or startApi(target): then the harness opens and closes the database
 * const res = await api.get('/v1/projects', 'editor');
 * await api.close();
 */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { loadConfig } from '../../src/config.js';
import type { ServiceInput } from '../../src/app/services.js';
import { buildTestApp } from '../helpers/app.js';
import type { DatabaseHandle } from '../../src/storage/database.js';
import type { DatabaseTarget } from '../helpers/database.js';
import { loadStandardFixture, temporaryObjectStorage, USERS, type FixtureUserName } from '../helpers/fixtures.js';
import { OpenApiValidator } from '../helpers/openapi.js';

export interface Api {
  app: FastifyInstance;
  database: DatabaseHandle;
  openapi: OpenApiValidator;
  /** Bearer token of each fixture user (client with its standard scopes). */
  tokens: Record<FixtureUserName, string>;
  get(url: string, as: FixtureUserName | null, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

/** Test configuration; `dir` holds the data directory and the local object storage. */
export function apiTestConfig(dir: string, env: Record<string, string> = {}) {
  return loadConfig({
    ...env,
    CERTDESK_ENV: 'test',
    LOG_LEVEL: 'silent',
    PUBLIC_BASE_URL: 'https://api.certdesk.test',
    ISSUER_URL: 'https://api.certdesk.test',
    DATA_DIR: dir,
    OBJECT_STORAGE_DIR: dir,
  });
}

/** Obtains a token with client_secret_post from the application's own token endpoint. */
export async function obtainToken(app: FastifyInstance, clientId: string, clientSecret: string, scope?: string): Promise<string> {
  const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret });
  if (scope) form.set('scope', scope);
  const res = await app.inject({
    method: 'POST',
    url: '/oauth2/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: form.toString(),
  });
  if (res.statusCode !== 200) throw new Error(`token request failed: ${res.statusCode} ${res.body}`);
  return (res.json() as { access_token: string }).access_token;
}

/**
 * Loads the standard fixture into the given database (or one it opens on the target), builds the app.
 * `beforeReady` may add routes (e.g. a route that throws) before the app starts. `close()` closes the
 * app, and the database only when the harness opened it, and removes the object storage folder.
 */
export async function startApi(
  source: DatabaseHandle | DatabaseTarget,
  beforeReady?: (app: FastifyInstance) => void,
  extraDeps: Partial<Omit<ServiceInput, 'config' | 'database'>> = {},
  /** Extra settings, as environment variables (e.g. `{ MAX_OUTSTANDING_UPLOADS: '3' }`). */
  env: Record<string, string> = {},
): Promise<Api & { dir: string }> {
  const ownsDatabase = 'open' in source;
  const database = ownsDatabase ? await source.open() : source;
  const { dir, storage, remove } = temporaryObjectStorage();
  await loadStandardFixture(database, storage);
  const app = await buildTestApp({ config: apiTestConfig(dir, env), database, ...extraDeps });
  beforeReady?.(app);
  await app.ready();
  const tokens = {} as Record<FixtureUserName, string>;
  for (const name of Object.keys(USERS) as FixtureUserName[]) tokens[name] = await obtainToken(app, USERS[name].clientId, USERS[name].clientSecret);
  const openapi = await OpenApiValidator.fromApp(app);
  return {
    dir,
    app,
    database,
    openapi,
    tokens,
    get: (url, as, headers = {}) =>
      app.inject({ method: 'GET', url, headers: { ...(as ? { authorization: `Bearer ${tokens[as]}` } : {}), ...headers } }),
    close: async () => {
      await app.close();
      if (ownsDatabase) await database.close();
      remove();
    },
  };
}
