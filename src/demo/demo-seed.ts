/**
 * The demo environment (`certdesk serve --demo`, `certdesk demo-data --seed-file`): two organizations with
 * projects, members of every role, an organization administrator with a web password, API clients with
 * fixed credentials, orders in every state with annotations, and real PNG previews and layers; plus a
 * certifier organization with one reviewer (DEMO_CERTIFIER) and no orders.
 *
 * DEMO-ONLY: the credentials below are public. Never load this seed into a shared or production database.
 */
import { SCOPES } from '../contract/schemas.js';
import { organizationKeyPrefix } from '../storage/object-storage/object-key.js';
import type { SeedDocumentT, SeedOrganizationT } from '../domain/seed/seed.schema.js';
import { generateOrder, type DemoPerson } from './order-generator.js';
import { drawPreview } from './preview-images.js';

type Role = 'admin' | 'editor' | 'viewer';

interface DemoOrganization {
  id: string;
  name: string;
  slug: string;
  domain: string;
  /** The organization administrator: web sign-in and the API client's acting user. */
  admin: DemoPerson & { password: string };
  members: DemoPerson[];
  projects: Array<{ id: string; name: string; date_created: string; members: Array<{ email: string; role: Role }> }>;
  client: { client_id: string; client_secret: string };
  orders: number;
}

const person = (username: string, domain: string): DemoPerson => ({ username, email: `${username.toLowerCase().replace(/\s+/g, '.')}@${domain}` });

function organization(spec: {
  id: string;
  name: string;
  slug: string;
  domain: string;
  projects: Array<[id: string, name: string, date: string]>;
  orders: number;
}): DemoOrganization {
  const admin = { ...person('Ada Admin', spec.domain), password: `${spec.slug}-demo-password` };
  const lead = person('Lena Lead', spec.domain);
  const editor = person('Eli Editor', spec.domain);
  const viewer = person('Vic Viewer', spec.domain);
  const loner = person('Nora Nomad', spec.domain); // member of no project: sees only her personal orders
  return {
    id: spec.id,
    name: spec.name,
    slug: spec.slug,
    domain: spec.domain,
    admin,
    members: [lead, editor, viewer, loner],
    projects: spec.projects.map(([id, name, date], k) => ({
      id,
      name,
      date_created: date,
      // Every project has an admin, an editor and a viewer; roles rotate so each person holds several roles.
      members:
        k === spec.projects.length - 1
          ? [{ email: lead.email, role: 'admin' as const }]
          : [
              { email: [lead, editor, viewer][k % 3]!.email, role: 'admin' as const },
              { email: [editor, viewer, lead][k % 3]!.email, role: 'editor' as const },
              { email: [viewer, lead, editor][k % 3]!.email, role: 'viewer' as const },
            ],
    })),
    client: { client_id: `demo-${spec.slug}-client`, client_secret: `demo-${spec.slug}-secret-local-use-only` },
    orders: spec.orders,
  };
}

/** The demo organizations with their fixed ids and credentials. */
export const DEMO_ORGANIZATIONS: readonly DemoOrganization[] = [
  organization({
    id: 'ac3e0000-0000-4000-8000-000000000001',
    name: 'Acme Studio',
    slug: 'acme',
    domain: 'acme-studio.example',
    projects: [
      ['ac3e0000-0000-4000-8000-0000000000a1', 'Spring Campaign', '2026-01-12T09:00:00Z'],
      ['ac3e0000-0000-4000-8000-0000000000a2', 'Brand Refresh', '2026-02-03T14:30:00Z'],
      ['ac3e0000-0000-4000-8000-0000000000a3', 'Édition Limitée', '2026-03-20T08:15:00Z'],
    ],
    orders: 96,
  }),
  organization({
    id: '70e70000-0000-4000-8000-000000000002',
    name: 'Northwind Pictures',
    slug: 'northwind',
    domain: 'northwind-pictures.example',
    projects: [
      ['70e70000-0000-4000-8000-0000000000b1', 'Feature Film', '2025-11-04T10:00:00Z'],
      ['70e70000-0000-4000-8000-0000000000b2', 'Trailers', '2026-01-28T16:45:00Z'],
    ],
    orders: 72,
  }),
];

/** The first demo organization: what `serve --demo` prints. */
export const DEMO_PRIMARY = DEMO_ORGANIZATIONS[0]!;

/**
 * The demo reviewer (docs/review.md): the certifier's staff member, in an organization of their own, so
 * every order of Acme and Northwind is theirs to review (separation of duties). `serve --demo` grants the
 * reviewer capability after loading the seed and prints these credentials. DEMO-ONLY: public password.
 */
export const DEMO_CERTIFIER = {
  id: 'ce570000-0000-4000-8000-000000000003',
  name: 'Certdesk Certifiers',
  reviewer: { username: 'Rita Reviewer', email: 'rita.reviewer@certifier.example', password: 'certifier-demo-password' },
} as const;

function certifierOrganization(): SeedOrganizationT {
  const r = DEMO_CERTIFIER.reviewer;
  return { id: DEMO_CERTIFIER.id, name: DEMO_CERTIFIER.name, users: [{ email: r.email, username: r.username, is_admin: true, password: r.password }] };
}

/** The newest demo order's creation time: fixed, so the seed is identical on every run. */
const NEWEST = new Date('2026-06-01T12:00:00Z');

function demoOrganization(org: DemoOrganization, objects: Map<string, Buffer>, imageSeed: number): SeedOrganizationT {
  const everyone: DemoPerson[] = [org.admin, ...org.members];
  // Every key under the organization's prefix (orgs/<id>/), as seeds and imports require.
  const base = organizationKeyPrefix(org.id);
  const previewKey = (i: number) => `${base}previews/${org.slug}-${String(i).padStart(6, '0')}.png`;
  const orders = Array.from({ length: org.orders }, (_, i) =>
    generateOrder(
      {
        seed: imageSeed,
        prefix: `demo-${org.slug}`,
        people: everyone,
        // One slot in four is a personal order.
        projectIds: [...org.projects.map((p) => p.id), null],
        reviewerEmail: org.admin.email,
        newest: NEWEST,
        spacingMinutes: 271,
        previewKey,
        layerKeys: (k) =>
          k % 3 === 0
            ? [
                { layer_name: 'Background', key: `${base}layers/${org.slug}-${String(k).padStart(6, '0')}-background.png` },
                { layer_name: 'Subject', key: `${base}layers/${org.slug}-${String(k).padStart(6, '0')}-subject.png` },
              ]
            : [],
      },
      i,
    ),
  );
  for (const [i, o] of orders.entries()) {
    if (o.asset_preview_key) objects.set(o.asset_preview_key, drawPreview(imageSeed * 1000 + i));
    for (const [k, l] of (o.layers ?? []).entries()) objects.set(l.key, drawPreview(imageSeed * 1000 + i + 500 * (k + 1), 160, 120));
  }
  return {
    id: org.id,
    name: org.name,
    detection_config: { object_flag_threshold: 0.6, weighted_confidence_threshold: 0.5 },
    users: [
      { email: org.admin.email, username: org.admin.username, is_admin: true, password: org.admin.password },
      ...org.members.map((m) => ({ email: m.email, username: m.username, is_admin: false })),
    ],
    projects: org.projects.map((p, k) => ({
      ...p,
      ...(k === 0 ? { detection_config: { object_flag_threshold: 0.7 } } : {}),
    })),
    api_clients: [
      { ...org.client, user_email: org.admin.email, name: `${org.name} demo client (demo only)`, scopes: [SCOPES.read, SCOPES.write] },
      {
        client_id: `demo-${org.slug}-viewer-client`,
        client_secret: `demo-${org.slug}-viewer-secret-local-use-only`,
        user_email: org.members[2]!.email,
        name: `${org.name} viewer demo client (demo only)`,
        scopes: [SCOPES.read],
      },
    ],
    orders,
  };
}

/**
 * The demo seed document (docs/seed-format.md). Deterministic: the same call gives identical JSON.
 * @example await loadSeed(db, storage, buildDemoSeed());
 */
export function buildDemoSeed(): SeedDocumentT {
  const objects = new Map<string, Buffer>();
  const organizations = [...DEMO_ORGANIZATIONS.map((org, k) => demoOrganization(org, objects, k + 1)), certifierOrganization()];
  return {
    organizations,
    objects: [...objects].map(([key, bytes]) => ({ key, content_type: 'image/png', content_base64: bytes.toString('base64') })),
  };
}
