/**
 * The standard fixture: two organizations with users of every kind, loaded through the real seed loader.
 *
 * Acme (ACME.id):
 * - admin@acme.test    organization administrator, member of no project
 * - editor@acme.test   `editor` in Zeta, `admin` in beta
 * - viewer@acme.test   `viewer` in Zeta
 * - loner@acme.test    member of no project
 * - projects Zeta, beta, Écran (no members): collation order (beta, Écran, Zeta) differs from code-point order
 * - orders: 40, spread over the three projects and the personal orders of admin, editor and loner, every
 *   state, some reviewed, with annotations, failed items, tags, previews and layers
 * Globex (GLOBEX.id): other@globex.test (admin), a project named Alpha, 6 orders.
 *
 * Every user has an API client `<name>-client` with secret `<name>-secret-0123456789`, scope read
 * (admin's client also has write), and the password `<name>-password`.
 *
 * @example
 * before(async () => { await loadStandardFixture(getDb()); }); // inside describeOnEachDatabase
 */
import type { DatabaseHandle } from '../../src/storage/database.js';
import { LocalDirectoryStorage } from '../../src/storage/object-storage/index.js';
import type { ObjectStorage } from '../../src/storage/object-storage/object-storage.js';
import { loadSeed, type SeedReport } from '../../src/domain/seed/seed.js';
import type { SeedDocumentT } from '../../src/domain/seed/seed.schema.js';
import type { OrderInputT } from '../../src/domain/orders/order-input.schema.js';
import { ORDER_STATES, SCOPES } from '../../src/contract/schemas.js';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const ACME = {
  id: '0a0a0a0a-0000-4000-8000-00000000000a',
  name: 'Acme Studio',
  projects: {
    zeta: { id: '0a0a0a0a-0000-4000-8000-0000000000a1', name: 'Zeta' },
    beta: { id: '0a0a0a0a-0000-4000-8000-0000000000b2', name: 'beta' },
    ecran: { id: '0a0a0a0a-0000-4000-8000-0000000000e3', name: 'Écran' },
  },
} as const;

export const GLOBEX = {
  id: '0b0b0b0b-0000-4000-8000-00000000000b',
  name: 'Globex',
  projects: { alpha: { id: '0b0b0b0b-0000-4000-8000-0000000000a1', name: 'Alpha' } },
} as const;

export type FixtureUserName = 'admin' | 'editor' | 'viewer' | 'loner' | 'other';

export interface FixtureUser {
  email: string;
  username: string;
  organizationId: string;
  isAdmin: boolean;
  password: string;
  clientId: string;
  clientSecret: string;
}

function user(name: FixtureUserName, domain: string, organizationId: string, isAdmin: boolean): FixtureUser {
  return {
    email: `${name}@${domain}`,
    username: name.charAt(0).toUpperCase() + name.slice(1),
    organizationId,
    isAdmin,
    password: `${name}-password`,
    clientId: `${name}-client`,
    clientSecret: `${name}-secret-0123456789`,
  };
}

export const USERS: Record<FixtureUserName, FixtureUser> = {
  admin: user('admin', 'acme.test', ACME.id, true),
  editor: user('editor', 'acme.test', ACME.id, false),
  viewer: user('viewer', 'acme.test', ACME.id, false),
  loner: user('loner', 'acme.test', ACME.id, false),
  other: user('other', 'globex.test', GLOBEX.id, true),
};

/** A 1×1 PNG: enough for previews and layers to be real objects with a real content type. */
export const TINY_PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/** Where each fixture order goes: a project id, or null for a personal order of the given owner. */
const ACME_PLACEMENTS: Array<{ projectId: string | null; owner: FixtureUserName }> = [
  { projectId: ACME.projects.zeta.id, owner: 'editor' },
  { projectId: ACME.projects.zeta.id, owner: 'viewer' },
  { projectId: ACME.projects.beta.id, owner: 'editor' },
  { projectId: ACME.projects.ecran.id, owner: 'admin' },
  { projectId: null, owner: 'admin' },
  { projectId: null, owner: 'editor' },
  { projectId: null, owner: 'loner' },
  { projectId: ACME.projects.zeta.id, owner: 'admin' },
];

function fixtureOrder(prefix: string, organizationId: string, i: number, projectId: string | null, owner: FixtureUser): OrderInputT {
  // Object keys live under the organization's prefix, as seeds require.
  const keys = `orgs/${organizationId}/`;
  const state = ORDER_STATES[i % ORDER_STATES.length]!;
  const reviewed = state === 'Reviewed';
  // Two orders share each creation time so that the order_id tie-break is exercised.
  const created = new Date(Date.UTC(2026, 0, 1) + Math.floor(i / 2) * 3_600_000).toISOString();
  return {
    order_id: `${prefix}-${String(i).padStart(4, '0')}`,
    username: owner.username,
    email: owner.email,
    order_state: state,
    order_title: `${prefix} order ${i}`,
    asset_id: `asset-${prefix}-${i}`,
    asset_name: `artwork-${i}.psd`,
    asset_last_modified_timestamp: String(1_767_225_600 + i),
    ordered_by: i % 3 === 0 ? null : `Artist ${i % 5}`,
    creation_time: created,
    analysis_list: [
      { analysis_type: 'metadata', analysis_passed: i % 2 === 0 },
      { analysis_type: 'layers', analysis_passed: true },
    ],
    analysis_failed_items:
      i % 4 === 0 ? [{ type: 'layer', name: `Layer ${i}`, storage_path: `orders/${prefix}-${i}/layer-1.png`, ai_likelihood: 0.8, annotation_ids: [`ann-${i}-1`] }] : [],
    tags: i % 2 === 0 ? ['fixture', `batch-${i % 3}`] : [],
    confidence: (i % 10) / 10,
    remediation: [0, 0.5, 1][i % 3]!,
    annotations:
      i % 4 === 0
        ? [
            {
              id: `ann-${i}-1`,
              bodies: [{ value: 'Possible AI texture', id: `body-${i}-1`, annotation: `ann-${i}-1` }],
              properties: { needs_remediation: true, ai_likelihood: 0.8 },
              target: {
                annotation: `ann-${i}-1`,
                selector: { type: 'RECTANGLE', geometry: { bounds: { minX: 0.1, minY: 0.1, maxX: 0.4, maxY: 0.3 }, x: 0.1, y: 0.1, w: 0.3, h: 0.2 } },
              },
            },
            {
              id: `ann-${i}-2`,
              bodies: [{ value: 'Brush strokes look human', id: `body-${i}-2`, annotation: `ann-${i}-2` }],
              properties: { needs_remediation: false, ai_likelihood: 0.1 },
              target: {
                annotation: `ann-${i}-2`,
                selector: {
                  type: 'POLYGON',
                  geometry: { bounds: { minX: 0.5, minY: 0.5, maxX: 0.9, maxY: 0.9 }, points: [[0.5, 0.5], [0.9, 0.6], [0.7, 0.9]] },
                },
              },
            },
          ]
        : [],
    reviewed_by: reviewed ? USERS.admin.email : null,
    review_timestamp: reviewed ? new Date(Date.parse(created) + 86_400_000).toISOString() : null,
    project_id: projectId,
    asset_preview_key: i % 5 === 4 ? null : `${keys}previews/${prefix}-${i}.png`,
    layers: i % 4 === 0 ? [{ layer_name: 'Background', key: `${keys}layers/${prefix}-${i}-bg.png` }] : [],
  };
}

export const ACME_ORDER_COUNT = 40;
export const GLOBEX_ORDER_COUNT = 6;

export function standardSeedDocument(): SeedDocumentT {
  const acmeUsers = (['admin', 'editor', 'viewer', 'loner'] as const).map((n) => USERS[n]);
  const acmeOrders = Array.from({ length: ACME_ORDER_COUNT }, (_, i) => {
    const placement = ACME_PLACEMENTS[i % ACME_PLACEMENTS.length]!;
    return fixtureOrder('acme', ACME.id, i, placement.projectId, USERS[placement.owner]);
  });
  const globexOrders = Array.from({ length: GLOBEX_ORDER_COUNT }, (_, i) =>
    fixtureOrder('globex', GLOBEX.id, i, i % 2 === 0 ? GLOBEX.projects.alpha.id : null, USERS.other),
  );
  const keys = new Set<string>();
  for (const o of [...acmeOrders, ...globexOrders]) {
    if (o.asset_preview_key) keys.add(o.asset_preview_key);
    for (const l of o.layers ?? []) keys.add(l.key);
  }
  const client = (u: FixtureUser, scopes: string[]) => ({ client_id: u.clientId, client_secret: u.clientSecret, user_email: u.email, name: `${u.username}'s client`, scopes });
  return {
    organizations: [
      {
        id: ACME.id,
        name: ACME.name,
        detection_config: { object_flag_threshold: 0.6 },
        users: acmeUsers.map((u) => ({ email: u.email, username: u.username, is_admin: u.isAdmin, password: u.password })),
        projects: [
          {
            id: ACME.projects.zeta.id,
            name: ACME.projects.zeta.name,
            date_created: '2025-12-01T09:00:00Z',
            members: [
              { email: USERS.editor.email, role: 'editor' },
              { email: USERS.viewer.email, role: 'viewer' },
            ],
            detection_config: { weighted_confidence_threshold: 0.7 },
          },
          { id: ACME.projects.beta.id, name: ACME.projects.beta.name, date_created: '2025-12-02T09:00:00Z', members: [{ email: USERS.editor.email, role: 'admin' }] },
          { id: ACME.projects.ecran.id, name: ACME.projects.ecran.name, date_created: '2025-12-03T09:00:00Z', members: [] },
        ],
        api_clients: acmeUsers.map((u) => client(u, u.isAdmin ? [SCOPES.read, SCOPES.write] : [SCOPES.read])),
        orders: acmeOrders,
      },
      {
        id: GLOBEX.id,
        name: GLOBEX.name,
        users: [{ email: USERS.other.email, username: USERS.other.username, is_admin: true, password: USERS.other.password }],
        projects: [{ id: GLOBEX.projects.alpha.id, name: GLOBEX.projects.alpha.name, date_created: '2025-11-01T00:00:00Z', members: [] }],
        api_clients: [client(USERS.other, [SCOPES.read])],
        orders: globexOrders,
      },
    ],
    objects: [...keys].map((key) => ({ key, content_type: 'image/png', content_base64: TINY_PNG_BASE64 })),
  };
}

/** Folders made by temporaryObjectStorage in this process and not removed yet. */
const temporaryDirs = new Set<string>();
let removeAtExit = false;

/** Removes every folder temporaryObjectStorage made in this process (idempotent; synchronous, so it also runs on 'exit'). */
export function removeTemporaryObjectStorages(): void {
  for (const dir of temporaryDirs) rmSync(dir, { recursive: true, force: true });
  temporaryDirs.clear();
}

/**
 * A fresh temporary object storage directory (`certdesk-objects-*` in the temp dir). Remove it with
 * `remove()` in the suite's `after` hook. As a safety net for the suites that hand the storage straight
 * to a seed and for tests that fail half-way, every folder still there when the test process exits is
 * removed then (node --test runs each file in its own process).
 */
export function temporaryObjectStorage(): { dir: string; storage: ObjectStorage; remove: () => void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'certdesk-objects-'));
  temporaryDirs.add(dir);
  if (!removeAtExit) {
    removeAtExit = true;
    process.once('exit', removeTemporaryObjectStorages);
  }
  const remove = () => {
    rmSync(dir, { recursive: true, force: true });
    temporaryDirs.delete(dir);
  };
  return { dir, storage: new LocalDirectoryStorage(dir), remove };
}

/**
 * Loads the standard fixture; returns the seed report and the object storage it wrote to. Without a
 * storage it makes a temporary one: call `removeStorage()` (or removeTemporaryObjectStorages) when done.
 */
export async function loadStandardFixture(
  handle: DatabaseHandle,
  storage?: ObjectStorage,
): Promise<{ report: SeedReport; storage: ObjectStorage; removeStorage: () => void }> {
  let removeStorage = () => {};
  if (!storage) ({ storage, remove: removeStorage } = temporaryObjectStorage());
  const report = await loadSeed(handle.db, storage, standardSeedDocument());
  return { report, storage, removeStorage };
}
