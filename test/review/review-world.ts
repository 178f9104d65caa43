/**
 * A small world for the review suites: a customer organization (an administrator with an API client, a
 * project with its own detection thresholds, orders in every state), a certifier organization with two
 * reviewers, and a reviewer inside the customer organization (separation of duties). The app runs on a
 * ManualClock (claims expire by moving it); web sessions use real time.
 */
import { rmSync } from 'node:fs';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { ManualClock } from '../../src/domain/time/clock.js';
import { grantReviewer } from '../../src/domain/review/reviewer-admin.js';
import { loadSeed } from '../../src/domain/seed/seed.js';
import type { SeedDocumentT } from '../../src/domain/seed/seed.schema.js';
import type { DatabaseHandle } from '../../src/storage/database.js';
import { buildTestApp } from '../helpers/app.js';
import { TINY_PNG_BASE64, temporaryObjectStorage } from '../helpers/fixtures.js';
import { apiTestConfig, obtainToken } from '../http/api-harness.js';
import { CookieJar, FORM_HEADERS, form, signIn } from '../web/web-test-helpers.js';

export const CUSTOMER_ORG = '1e000000-0000-4000-8000-000000000001';
export const CERTIFIER_ORG = '1e000000-0000-4000-8000-000000000002';
export const PROJECT_ID = '1e000000-0000-4000-8000-0000000000a1';
export const PASSWORD = 'correct horse battery staple';

export const PEOPLE = {
  customer: { email: 'cleo@customer.example', username: 'Cleo Customer' },
  customerReviewer: { email: 'carl@customer.example', username: 'Carl Inhouse' },
  rita: { email: 'rita@certifier.example', username: 'Rita Reviewer' },
  rex: { email: 'rex@certifier.example', username: 'Rex Reviewer' },
} as const;
export type Person = keyof typeof PEOPLE;

export const CLIENT = { id: 'customer-client', secret: 'customer-secret-0123456789abcdef' };

/** Orders `q0`..`q{n-1}` In Progress (oldest first), plus one of every other state. */
export function reviewSeed(inProgress: number): SeedDocumentT {
  const base = Date.UTC(2026, 0, 1);
  const order = (id: string, state: string, minutes: number, projectId: string | null = null) => ({
    order_id: id,
    username: PEOPLE.customer.username,
    email: PEOPLE.customer.email,
    order_state: state as 'In Progress',
    order_title: `Title of ${id}`,
    asset_id: `asset-${id}`,
    asset_name: `${id}.png`,
    asset_last_modified_timestamp: '1767225600',
    ordered_by: null,
    creation_time: new Date(base + minutes * 60_000).toISOString(),
    project_id: projectId,
    asset_preview_key: `orgs/${CUSTOMER_ORG}/previews/${id}.png`,
    ...(state === 'Reviewed' ? { reviewed_by: 'someone@certifier.example', review_timestamp: new Date(base).toISOString() } : {}),
  });
  const orders = [
    ...Array.from({ length: inProgress }, (_, i) => order(`q${i}`, 'In Progress', 10 * (inProgress - i), i === 0 ? PROJECT_ID : null)),
    order('x-action', 'Action Required', 1),
    order('x-certified', 'Human Certified', 2),
    order('x-reviewed', 'Reviewed', 3),
    order('x-failed', 'Failed', 4),
  ];
  return {
    organizations: [
      {
        id: CUSTOMER_ORG,
        name: 'Customer & Co <Org>',
        users: [
          { email: PEOPLE.customer.email, username: PEOPLE.customer.username, is_admin: true, password: PASSWORD },
          { email: PEOPLE.customerReviewer.email, username: PEOPLE.customerReviewer.username, is_admin: false, password: PASSWORD },
        ],
        projects: [
          {
            id: PROJECT_ID,
            name: 'Spring catalogue',
            members: [{ email: PEOPLE.customerReviewer.email, role: 'viewer' }],
            detection_config: { object_flag_threshold: 0.42, weighted_confidence_threshold: 0.37 },
          },
        ],
        api_clients: [{ client_id: CLIENT.id, client_secret: CLIENT.secret, user_email: PEOPLE.customer.email, scopes: ['enterprise-api-access/read', 'enterprise-api-access/write'] }],
        orders,
      },
      {
        id: CERTIFIER_ORG,
        name: 'Certifier Ltd',
        users: [
          { email: PEOPLE.rita.email, username: PEOPLE.rita.username, is_admin: true, password: PASSWORD },
          { email: PEOPLE.rex.email, username: PEOPLE.rex.username, is_admin: false, password: PASSWORD },
        ],
      },
    ],
    objects: orders.map((o) => ({ key: o.asset_preview_key, content_type: 'image/png', content_base64: TINY_PNG_BASE64 })),
  } as SeedDocumentT;
}

export interface ReviewWorld {
  app: FastifyInstance;
  clock: ManualClock;
  dir: string;
  jars: Record<Person, CookieJar>;
  csrf: Record<Person, string>;
  customerToken: string;
  close(): Promise<void>;
}

/** Loads the world, grants rita, rex and the customer's in-house reviewer, signs everyone in. */
export async function openReviewWorld(handle: DatabaseHandle, inProgress = 6): Promise<ReviewWorld> {
  const { dir, storage } = temporaryObjectStorage();
  await loadSeed(handle.db, storage, reviewSeed(inProgress));
  for (const p of ['rita', 'rex', 'customerReviewer'] as const) await grantReviewer(handle.db, PEOPLE[p].email);
  // As if uploaded through the API: each order's asset is a file in object storage (its preview PNG), so
  // a certificate can name its bytes.
  await handle.db.updateTable('orders').set((eb) => ({ asset_key: eb.ref('asset_preview_key'), asset_content_type: 'image/png' })).execute();
  const clock = new ManualClock(Date.now());
  const app = await buildTestApp({ config: apiTestConfig(dir), database: handle, storage, clock });
  await app.ready();
  const jars = {} as Record<Person, CookieJar>;
  const csrf = {} as Record<Person, string>;
  for (const p of Object.keys(PEOPLE) as Person[]) {
    const { jar } = await signIn(app, PEOPLE[p].email, PASSWORD);
    jars[p] = jar;
    const page = await app.inject({ method: 'GET', url: '/orders', headers: { cookie: jar.header() } });
    csrf[p] = /name="_csrf" value="([^"]+)"/.exec(page.body)![1]!;
  }
  const customerToken = await obtainToken(app, CLIENT.id, CLIENT.secret);
  return {
    app,
    clock,
    dir,
    jars,
    csrf,
    customerToken,
    close: async () => {
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function get(w: ReviewWorld, who: Person, url: string): Promise<LightMyRequestResponse> {
  return w.app.inject({ method: 'GET', url, headers: { cookie: w.jars[who].header() } });
}

export function postForm(w: ReviewWorld, who: Person, url: string, fields: Record<string, string>, withCsrf = true): Promise<LightMyRequestResponse> {
  return w.app.inject({ method: 'POST', url, headers: { ...FORM_HEADERS, cookie: w.jars[who].header() }, payload: form(withCsrf ? { _csrf: w.csrf[who], ...fields } : fields) });
}

export function sendJson(w: ReviewWorld, who: Person, method: 'POST' | 'PUT', url: string, body: unknown, withCsrf = true): Promise<LightMyRequestResponse> {
  return w.app.inject({
    method,
    url,
    headers: { 'content-type': 'application/json', cookie: w.jars[who].header(), ...(withCsrf ? { 'x-csrf-token': w.csrf[who] } : {}) },
    payload: JSON.stringify(body),
  });
}

/** Opens the review page (claiming the order when free) and returns the claim id on it, if any. */
export async function openOrder(w: ReviewWorld, who: Person, orderId: string): Promise<{ page: LightMyRequestResponse; claimId: string | null }> {
  const page = await get(w, who, `/review/orders/${orderId}`);
  const m = /data-claim-id="([^"]+)"/.exec(page.body);
  return { page, claimId: m ? m[1]! : null };
}

export function decide(w: ReviewWorld, who: Person, orderId: string, decision: string, note: string, claimId: string): Promise<LightMyRequestResponse> {
  return postForm(w, who, `/review/orders/${orderId}/decision`, { decision, note, claim_id: claimId });
}

export async function apiOrder(w: ReviewWorld, orderId: string): Promise<Record<string, unknown>> {
  const res = await w.app.inject({ method: 'GET', url: `/v1/orders/${orderId}`, headers: { authorization: `Bearer ${w.customerToken}` } });
  if (res.statusCode !== 200) throw new Error(`GET /v1/orders/${orderId}: ${res.statusCode} ${res.body}`);
  return res.json() as Record<string, unknown>;
}
