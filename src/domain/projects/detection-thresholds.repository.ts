/**
 * The detection thresholds in force for an order: each resolves project → organization → built-in
 * (the same rule as the project endpoints' `detection_config`). Personal orders use the organization's.
 */
import type { Executor } from '../../storage/database.js';
import { BUILT_IN_DETECTION_THRESHOLDS as BUILT_IN } from './detection-defaults.js';

export interface EffectiveDetectionThresholds {
  object_flag_threshold: number;
  weighted_confidence_threshold: number;
}

export async function findDetectionThresholds(db: Executor, organizationId: string, projectId: string | null): Promise<EffectiveDetectionThresholds> {
  const org = await db
    .selectFrom('organizations')
    .select(['object_flag_threshold', 'weighted_confidence_threshold'])
    .where('id', '=', organizationId)
    .executeTakeFirst();
  const project = projectId
    ? await db
        .selectFrom('projects')
        .select(['object_flag_threshold', 'weighted_confidence_threshold'])
        .where('id', '=', projectId)
        .where('organization_id', '=', organizationId)
        .executeTakeFirst()
    : undefined;
  return {
    object_flag_threshold: project?.object_flag_threshold ?? org?.object_flag_threshold ?? BUILT_IN.object_flag_threshold,
    weighted_confidence_threshold: project?.weighted_confidence_threshold ?? org?.weighted_confidence_threshold ?? BUILT_IN.weighted_confidence_threshold,
  };
}
