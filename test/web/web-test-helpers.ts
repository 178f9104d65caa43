/**
 * Helpers of the web application's tests: an app over a fixture database, and in-process sign-in that
 * goes through the real form (CSRF cookie and field included).
 */
import assert from 'node:assert/strict';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { OrderT } from '../../src/contract/schemas.js';
import { USERS } from '../helpers/fixtures.js';
import { loadConfig, type Config } from '../../src/config.js';
import { buildTestApp } from '../helpers/app.js';
import type { DatabaseHandle } from '../../src/storage/database.js';
import type { ObjectStorage } from '../../src/storage/object-storage/object-storage.js';

export function testConfig(overrides: Partial<Config> = {}): Config {
  return { ...loadConfig({ CERTDESK_ENV: 'test', LOG_LEVEL: 'silent' }), ...overrides };
}

export async function buildWebApp(handle: DatabaseHandle, storage: ObjectStorage, overrides: Partial<Config> = {}): Promise<FastifyInstance> {
  return buildTestApp({ config: testConfig(overrides), database: handle, storage });
}

/** A cookie jar for app.inject: keeps name=value pairs from Set-Cookie, drops cleared ones. */
export class CookieJar {
  private readonly cookies = new Map<string, string>();

  store(response: LightMyRequestResponse): void {
    for (const c of response.cookies as Array<{ name: string; value: string; maxAge?: number; expires?: Date }>) {
      const cleared = c.value === '' || c.maxAge === 0 || (c.expires !== undefined && c.expires.getTime() <= Date.now());
      if (cleared) this.cookies.delete(c.name);
      else this.cookies.set(c.name, c.value);
    }
  }

  get(name: string): string | undefined {
    return this.cookies.get(name);
  }

  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

/** The value of the hidden `_csrf` field of the first form on a page. */
export function csrfFieldOf(html: string): string {
  const m = /name="_csrf" value="([^"]+)"/.exec(html);
  if (!m) throw new Error('no CSRF field on the page');
  return m[1]!;
}

export function form(fields: Record<string, string | string[]>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) for (const item of Array.isArray(v) ? v : [v]) params.append(k, item);
  return params.toString();
}

export const FORM_HEADERS = { 'content-type': 'application/x-www-form-urlencoded' };

/** Signs in through the form; returns the jar (with the session cookie) and the POST's response. */
export async function signIn(
  app: FastifyInstance,
  email: string,
  password: string,
  extraHeaders: Record<string, string> = {},
): Promise<{ jar: CookieJar; response: LightMyRequestResponse }> {
  const jar = new CookieJar();
  const page = await app.inject({ method: 'GET', url: '/sign-in', headers: extraHeaders });
  jar.store(page);
  const response = await app.inject({
    method: 'POST',
    url: '/sign-in',
    headers: { ...FORM_HEADERS, cookie: jar.header(), ...extraHeaders },
    payload: form({ _csrf: csrfFieldOf(page.body), email, password }),
  });
  jar.store(response);
  return { jar, response };
}

/**
 * An order as the API shows it to the fixture's organization administrator: a client-credentials token,
 * then GET /v1/orders/{id} on the listening app at `base` (asserted 200).
 */
export async function apiOrderAsAdmin(base: string, orderId: string): Promise<OrderT> {
  const tokenResponse = await fetch(`${base}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: USERS.admin.clientId, client_secret: USERS.admin.clientSecret }),
  });
  const { access_token: accessToken } = (await tokenResponse.json()) as { access_token: string };
  const res = await fetch(`${base}/v1/orders/${orderId}`, { headers: { authorization: `Bearer ${accessToken}` } });
  assert.equal(res.status, 200);
  return (await res.json()) as OrderT;
}
