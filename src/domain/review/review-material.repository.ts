/**
 * SQL of what a review needs besides the order itself (docs/review.md: its organization's name, the project's
 * detection thresholds, the customer's responses with their evidence files, the reviewers' requests),
 * and nothing else: no member lists, no credentials, no other order.
 */
import type { Executor } from '../../storage/database.js';

export interface ThresholdRows {
  organization_name: string;
  org_object_flag_threshold: number | null;
  org_weighted_confidence_threshold: number | null;
  project_name: string | null;
  object_flag_threshold: number | null;
  weighted_confidence_threshold: number | null;
}

export async function findOrganizationAndProject(db: Executor, organizationId: string, projectId: string | null): Promise<ThresholdRows | undefined> {
  const org = await db
    .selectFrom('organizations')
    .select(['name', 'object_flag_threshold', 'weighted_confidence_threshold'])
    .where('id', '=', organizationId)
    .executeTakeFirst();
  if (!org) return undefined;
  const project = projectId
    ? await db
        .selectFrom('projects')
        .select(['name', 'object_flag_threshold', 'weighted_confidence_threshold'])
        .where('id', '=', projectId)
        .where('organization_id', '=', organizationId)
        .executeTakeFirst()
    : undefined;
  return {
    organization_name: org.name,
    org_object_flag_threshold: org.object_flag_threshold,
    org_weighted_confidence_threshold: org.weighted_confidence_threshold,
    project_name: project?.name ?? null,
    object_flag_threshold: project?.object_flag_threshold ?? null,
    weighted_confidence_threshold: project?.weighted_confidence_threshold ?? null,
  };
}

export interface StateMoveRow {
  id: number;
  type: string;
  from_state: string | null;
  to_state: string | null;
  actor_kind: 'user' | 'system';
  note: string | null;
  changes: Record<string, { before: unknown; after: unknown }> | null;
  occurred_at: Date;
}

/** The order's moves into and out of `Action Required` (requests and responses), oldest first. */
export async function listEvidenceRounds(db: Executor, orderId: string): Promise<StateMoveRow[]> {
  return (await db
    .selectFrom('order_events')
    .select(['id', 'type', 'from_state', 'to_state', 'actor_kind', 'note', 'changes', 'occurred_at'])
    .where('order_id', '=', orderId)
    .where((eb) => eb.or([eb('to_state', '=', 'Action Required'), eb('from_state', '=', 'Action Required')]))
    .orderBy('id')
    .execute()) as unknown as StateMoveRow[];
}

export interface EvidenceUploadRow {
  upload_id: string;
  object_key: string;
  file_name: string;
  content_type: string;
  size: number;
}

/** Uploads consumed by this order (its evidence), by id. */
export async function findOrderUploads(db: Executor, orderId: string, uploadIds: readonly string[]): Promise<EvidenceUploadRow[]> {
  if (uploadIds.length === 0) return [];
  return db
    .selectFrom('uploads')
    .select(['upload_id', 'object_key', 'file_name', 'content_type', 'size'])
    .where('used_by_order', '=', orderId)
    .where('upload_id', 'in', [...uploadIds])
    .execute();
}

/**
 * The note of the newest move into `Action Required` when a reviewer made it (Ask for evidence), else
 * null (the analysis flagged the order, or it never was there). Shown to the customer on the order page.
 */
export async function latestEvidenceRequestNote(db: Executor, orderId: string): Promise<string | null> {
  const row = await db
    .selectFrom('order_events')
    .select(['actor_kind', 'note'])
    .where('order_id', '=', orderId)
    .where('to_state', '=', 'Action Required')
    .where('from_state', '=', 'In Progress')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row && row.actor_kind === 'user' ? row.note : null;
}
