/**
 * A generated multi-tenant world for the cross-tenant property: several organizations, each with users
 * of every kind (organization administrators, project admins, editors, viewers, members of nothing),
 * projects, personal and project orders with previews, and one API client per user. Every identifier
 * carries its organization's tag, so "does this answer mention organization B?" is a substring search.
 *
 * @example
 * const world = fc.sample(tenantWorld(), { seed, numRuns: 1 })[0]!;
 * await loadSeed(db, storage, world.seed);
 */
import fc from 'fast-check';
import { ORDER_STATES, PROJECT_ROLES, SCOPES } from '../../src/contract/schemas.js';
import type { SeedDocumentT } from '../../src/domain/seed/seed.schema.js';
import type { OrderInputT } from '../../src/domain/orders/order-input.schema.js';
import { TINY_PNG_BASE64 } from '../helpers/fixtures.js';

export interface TenantUser {
  email: string;
  username: string;
  isAdmin: boolean;
  clientId: string;
  clientSecret: string;
  /** Role in each project of the organization the user belongs to (project id → role). */
  roles: Record<string, string>;
}

export interface Tenant {
  tag: string;
  id: string;
  name: string;
  users: TenantUser[];
  projects: Array<{ id: string; name: string }>;
  orderIds: string[];
  objectKeys: string[];
  /** Every string of this organization that no other organization's caller may ever see. */
  secrets: string[];
}

export interface TenantWorld {
  tenants: Tenant[];
  seed: SeedDocumentT;
}

interface OrgShape {
  rand: string;
  name: string;
  users: Array<{ isAdmin: boolean; roles: Array<(typeof PROJECT_ROLES)[number] | null> }>;
  projects: string[];
  orders: Array<{ project: number | null; owner: number; state: number; preview: boolean; minutes: number }>;
}

const word = fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz'), minLength: 4, maxLength: 6 });
const MAX_PROJECTS = 3;

const orgShape: fc.Arbitrary<OrgShape> = fc.record({
  rand: word,
  name: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }),
  users: fc.array(
    fc.record({ isAdmin: fc.boolean(), roles: fc.array(fc.option(fc.constantFrom(...PROJECT_ROLES), { freq: 2 }), { minLength: MAX_PROJECTS, maxLength: MAX_PROJECTS }) }),
    { minLength: 1, maxLength: 4 },
  ),
  projects: fc.array(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 10 }), { minLength: 0, maxLength: MAX_PROJECTS }),
  orders: fc.array(
    fc.record({ project: fc.option(fc.nat(MAX_PROJECTS - 1), { freq: 3 }), owner: fc.nat(3), state: fc.nat(ORDER_STATES.length - 1), preview: fc.boolean(), minutes: fc.nat(100_000) }),
    { maxLength: 7 },
  ),
});

/** A UUID whose last group carries a sequence number, so ids within a world never collide. */
function uuid(hex: string, n: number): string {
  return `${hex.padEnd(8, '0').slice(0, 8)}-0000-4000-8000-${String(n).padStart(12, '0')}`;
}

function buildTenant(shape: OrgShape, index: number, next: () => number): { tenant: Tenant; organization: SeedDocumentT['organizations'][number]; objects: string[] } {
  const tag = `t${index}x${shape.rand}`;
  const hex = Buffer.from(shape.rand).toString('hex');
  const id = uuid(hex, next());
  const projects = shape.projects.map((name, k) => ({ id: uuid(hex, next()), name: `${name} ${tag}-p${k}` }));
  const users: TenantUser[] = shape.users.map((u, j) => {
    const roles: Record<string, string> = {};
    projects.forEach((p, k) => {
      const role = u.roles[k];
      if (role) roles[p.id] = role;
    });
    return {
      email: `u${j}.${tag}@${tag}.example`,
      username: `User ${tag}-${j}`,
      // The first user administers the organization, so every organization has one.
      isAdmin: j === 0 || u.isAdmin,
      clientId: `${tag}-client-${j}`,
      clientSecret: `${tag}-secret-${j}-0123456789`,
      roles,
    };
  });
  const orders: OrderInputT[] = shape.orders.map((o, k) => {
    const owner = users[o.owner % users.length]!;
    const project = o.project !== null && projects.length > 0 ? projects[o.project % projects.length]! : null;
    const state = ORDER_STATES[o.state]!;
    const created = new Date(Date.UTC(2026, 0, 1) + o.minutes * 60_000).toISOString();
    return {
      order_id: `${tag}-o${k}`,
      username: owner.username,
      email: owner.email,
      order_state: state,
      order_title: `Order ${tag}-${k}`,
      asset_id: `asset-${tag}-${k}`,
      asset_name: `art-${tag}-${k}.psd`,
      asset_last_modified_timestamp: '1767225600',
      ordered_by: null,
      creation_time: created,
      reviewed_by: state === 'Reviewed' ? users[0]!.email : null,
      review_timestamp: state === 'Reviewed' ? created : null,
      project_id: project?.id ?? null,
      // Object keys live under their organization's prefix (the seed refuses any other).
      asset_preview_key: o.preview ? `orgs/${id}/previews/${tag}-${k}.png` : null,
      layers: o.preview ? [{ layer_name: `Layer ${tag}-${k}`, key: `orgs/${id}/layers/${tag}-${k}.png` }] : [],
    };
  });
  const objects = orders.flatMap((o) => [o.asset_preview_key, ...(o.layers ?? []).map((l) => l.key)]).filter((k): k is string => !!k);
  const name = `${shape.name} ${tag}`;
  const tenant: Tenant = {
    tag,
    id,
    name,
    users,
    projects,
    orderIds: orders.map((o) => o.order_id),
    objectKeys: objects,
    secrets: [tag, id, name, ...projects.flatMap((p) => [p.id, p.name]), ...users.flatMap((u) => [u.email, u.username, u.clientId]), ...orders.map((o) => o.order_id), ...objects],
  };
  const organization: SeedDocumentT['organizations'][number] = {
    id,
    name,
    users: users.map((u) => ({ email: u.email, username: u.username, is_admin: u.isAdmin })),
    projects: projects.map((p) => ({
      id: p.id,
      name: p.name,
      members: users.filter((u) => u.roles[p.id]).map((u) => ({ email: u.email, role: u.roles[p.id] as (typeof PROJECT_ROLES)[number] })),
    })),
    api_clients: users.map((u) => ({ client_id: u.clientId, client_secret: u.clientSecret, user_email: u.email, scopes: u.isAdmin ? [SCOPES.read, SCOPES.write] : [SCOPES.read] })),
    orders,
  };
  return { tenant, organization, objects };
}

/** Between `min` and `max` organizations with unique tags. */
export function tenantWorld(min = 3, max = 4): fc.Arbitrary<TenantWorld> {
  return fc.uniqueArray(orgShape, { minLength: min, maxLength: max, selector: (o) => o.rand }).map((shapes) => {
    let counter = 1;
    const next = () => counter++;
    const built = shapes.map((shape, i) => buildTenant(shape, i, next));
    return {
      tenants: built.map((b) => b.tenant),
      seed: {
        organizations: built.map((b) => b.organization),
        objects: built.flatMap((b) => b.objects).map((key) => ({ key, content_type: 'image/png', content_base64: TINY_PNG_BASE64 })),
      },
    };
  });
}
