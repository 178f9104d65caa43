/**
 * The benchmark organizations of `npm run bench` (bench/orders.ts), shared with bench/client-export.ts:
 * the seed document (users, four projects, one read-scope API client `bench-<slug>` each) and the orders,
 * generated inside PostgreSQL with generate_series (no rows cross the wire; the triggers keep the
 * counters exact).
 */
import { sql } from 'kysely';
import type { SeedDocumentT } from '../src/domain/seed/seed.schema.js';
import type { DatabaseHandle } from '../src/storage/database.js';

export interface BenchOrganization {
  id: string;
  name: string;
  orders: number;
  slug: string;
}

/** The secret of the organization's API client `bench-<slug>`. */
export const secretOf = (slug: string) => `bench-${slug}-secret-0123456789abcdef`;

export function seedDocument(organizations: BenchOrganization[]): SeedDocumentT {
  const org = (o: BenchOrganization) => ({
    id: o.id,
    name: o.name,
    users: ['admin', 'ana', 'ben', 'cy'].map((u, i) => ({ email: `${u}@${o.slug}.bench`, username: u, is_admin: i === 0 })),
    projects: [0, 1, 2, 3].map((p) => ({
      id: `${o.id.slice(0, 24)}00000000${p}${o.id.slice(-3)}`,
      name: `Project ${['Aurora', 'Borealis', 'Cirrus', 'Delta'][p]}`,
      date_created: '2025-01-01T00:00:00Z',
      members: [{ email: `${['ana', 'ben', 'cy', 'ana'][p]}@${o.slug}.bench`, role: (['editor', 'viewer', 'admin', 'viewer'] as const)[p] }],
    })),
    api_clients: [{ client_id: `bench-${o.slug}`, client_secret: secretOf(o.slug), user_email: `admin@${o.slug}.bench`, scopes: ['enterprise-api-access/read'] }],
    orders: [],
  });
  return { organizations: organizations.map(org) } as unknown as SeedDocumentT;
}

/**
 * Inserts orders [from, to) of an organization in one statement. The documents have the renderer's shape
 * (every field, defaults included) and realistic size: three analysis lines, tags, and on every fourth order
 * a failed item, two annotations and a layer. Nine orders in ten have a preview and every fourth a layer,
 * each under the organization's key prefix and distinct per order, so every one of them is presigned.
 */
export async function insertOrders(handle: DatabaseHandle, org: BenchOrganization, from: number, to: number): Promise<void> {
  await sql`
    WITH base AS (
      SELECT i,
        ${org.slug} || '-' || lpad(i::text, 7, '0') AS order_id,
        (ARRAY['admin','ana','ben','cy'])[1 + i % 4] AS who,
        (ARRAY['In Progress','Human Certified','Action Required','Reviewed','Failed','Unsupported File'])[1 + i % 6] AS state,
        timestamptz '2026-06-01T00:00:00Z' - (i / 2) * interval '15 seconds' AS created,
        CASE WHEN i % 5 = 4 THEN NULL ELSE p.id END AS project_id
      FROM generate_series(${from}::int, ${to - 1}::int) AS i
      LEFT JOIN LATERAL (SELECT id FROM projects WHERE organization_id = ${org.id}::uuid ORDER BY id OFFSET (i % 4) LIMIT 1) p ON true
    ), docs AS (
      SELECT b.*, who || '@' || ${org.slug} || '.bench' AS email,
        to_char(created AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_text,
        json_build_array(
          json_build_object('analysis_type', 'metadata', 'analysis_passed', i % 2 = 0),
          json_build_object('analysis_type', 'layers', 'analysis_passed', true),
          json_build_object('analysis_type', 'ai_texture', 'analysis_passed', i % 3 <> 0)) AS analysis,
        CASE WHEN i % 2 = 0 THEN json_build_array('benchmark', 'batch-' || (i % 7)) ELSE '[]'::json END AS tags
      FROM base b
    )
    INSERT INTO orders (order_id, organization_id, project_id, owner_key, order_state, creation_time, asset_preview_key, layers, doc, preview_doc)
    SELECT order_id, ${org.id}::uuid, project_id, email, state, created,
      CASE WHEN i % 10 = 9 THEN NULL ELSE 'orgs/' || ${org.id} || '/orders/' || order_id || '/preview.jpg' END,
      CASE WHEN i % 4 = 0 THEN jsonb_build_array(jsonb_build_object('layer_name', 'Background', 'key', 'orgs/' || ${org.id} || '/orders/' || order_id || '/layers/background.png')) ELSE '[]'::jsonb END,
      json_build_object(
        'order_id', order_id, 'username', who, 'email', email, 'order_state', state,
        'order_title', 'Key art revision ' || i, 'asset_id', 'asset-' || i, 'asset_name', 'artwork-' || i || '.psd',
        'asset_last_modified_timestamp', (1767225600 + i)::text,
        'ordered_by', CASE WHEN i % 3 = 0 THEN NULL ELSE 'Artist ' || (i % 50) END,
        'creation_time', created_text, 'analysis_list', analysis,
        'analysis_failed_items', CASE WHEN i % 4 = 0 THEN json_build_array(json_build_object(
            'type', 'layer', 'name', 'Layer ' || (i % 9), 'storage_path', 'orders/' || order_id || '/layer-1.png',
            'ai_likelihood', 0.8, 'annotation_ids', json_build_array('ann-' || i || '-1'), 'annotation_id', NULL)) ELSE '[]'::json END,
        'tags', tags, 'confidence', (i % 10) / 10.0, 'remediation', (ARRAY[0, 0.5, 1])[1 + i % 3],
        'annotations', CASE WHEN i % 4 = 0 THEN json_build_array(
            json_build_object('id', 'ann-' || i || '-1',
              'bodies', json_build_array(json_build_object('value', 'Possible AI texture', 'id', 'body-' || i || '-1', 'annotation', 'ann-' || i || '-1')),
              'properties', json_build_object('needs_remediation', true, 'ai_likelihood', 0.8),
              'target', json_build_object('annotation', 'ann-' || i || '-1', 'selector', json_build_object('type', 'RECTANGLE',
                'geometry', json_build_object('bounds', json_build_object('minX', 0.1, 'minY', 0.1, 'maxX', 0.4, 'maxY', 0.3), 'x', 0.1, 'y', 0.1, 'w', 0.3, 'h', 0.2)))),
            json_build_object('id', 'ann-' || i || '-2',
              'bodies', json_build_array(json_build_object('value', 'Brush strokes look human', 'id', 'body-' || i || '-2', 'annotation', 'ann-' || i || '-2')),
              'properties', json_build_object('needs_remediation', false, 'ai_likelihood', 0.1),
              'target', json_build_object('annotation', 'ann-' || i || '-2', 'selector', json_build_object('type', 'POLYGON',
                'geometry', json_build_object('bounds', json_build_object('minX', 0.5, 'minY', 0.5, 'maxX', 0.9, 'maxY', 0.9),
                  'points', json_build_array(json_build_array(0.5, 0.5), json_build_array(0.9, 0.6), json_build_array(0.7, 0.9)))))))
          ELSE '[]'::json END,
        'reviewed_by', CASE WHEN state = 'Reviewed' THEN 'admin@' || ${org.slug} || '.bench' END,
        'review_timestamp', CASE WHEN state = 'Reviewed' THEN to_char((created + interval '1 day') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') END),
      json_build_object('order_id', order_id, 'order_title', 'Key art revision ' || i, 'creation_time', created_text,
        'order_state', state, 'analysis_list', analysis, 'tags', tags)
    FROM docs`.execute(handle.db);
}
