/** Rows → the project endpoints' `Project` shape. */
import type { ProjectT } from '../../contract/schemas.js';
import { BUILT_IN_DETECTION_THRESHOLDS as BUILT_IN } from './detection-defaults.js';
import type { ProjectMemberRow, ProjectRow } from './project.repository.js';

/** Code-point comparison: a total order for tie-breaks, the same on every machine. */
export const byCodePoint = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

const collator = new Intl.Collator('en', { sensitivity: 'base' });

/** Names as a person expects them (case- and accent-insensitive, docs/api.md), ties by code point. */
export const byName = (a: string, b: string): number => collator.compare(a, b) || byCodePoint(a, b);

/** Members sorted by e-mail (case-insensitive, then as stored). */
export function mapMembers(rows: readonly ProjectMemberRow[]): ProjectT['members'] {
  return [...rows]
    .sort((a, b) => byCodePoint(a.email_key, b.email_key) || byCodePoint(a.email, b.email))
    .map((m) => ({ email: m.email, role: m.role }));
}

/**
 * One project. Each threshold resolves project → organization → built-in; the `org_*` fields show the
 * organization's effective value and the `default_*` fields the built-in one.
 */
export function mapProject(row: ProjectRow, members: readonly ProjectMemberRow[]): ProjectT {
  const orgObject = row.org_object_flag_threshold ?? BUILT_IN.object_flag_threshold;
  const orgWeighted = row.org_weighted_confidence_threshold ?? BUILT_IN.weighted_confidence_threshold;
  return {
    id: row.id,
    name: row.name,
    date_created: row.date_created.toISOString(),
    members: mapMembers(members),
    detection_config: {
      object_flag_threshold: row.object_flag_threshold ?? orgObject,
      weighted_confidence_threshold: row.weighted_confidence_threshold ?? orgWeighted,
      default_object_flag_threshold: BUILT_IN.object_flag_threshold,
      default_weighted_confidence_threshold: BUILT_IN.weighted_confidence_threshold,
      org_object_flag_threshold: orgObject,
      org_weighted_confidence_threshold: orgWeighted,
    },
  };
}
