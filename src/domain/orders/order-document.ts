/**
 * Renders an order, once, at write time, into the stored documents a listing splices into its responses:
 * `doc` (the Order minus project, asset_preview_url and layers_info) and `preview_doc` (the OrderPreview
 * minus asset_preview_url and project_name). Every interface field is present with its default, and
 * timestamps are normalized to RFC 3339 UTC at microsecond precision, the same instant the row stores.
 */
import type { AnnotationT, FailedAnalysisItemT, HumanOrderStateValue, OrderAnalysisLineT } from '../../contract/schemas.js';
import { isKeyOfOrganization, organizationKeyPrefix } from '../../storage/object-storage/object-key.js';
import type { OrderInputT } from './order-input.schema.js';

export interface OrderRow {
  order_id: string;
  organization_id: string;
  project_id: string | null;
  owner_key: string;
  order_state: HumanOrderStateValue;
  /** RFC 3339 UTC, microsecond precision (see normalizeTimestamp). */
  creation_time: string;
  asset_preview_key: string | null;
  /** JSON text of the stored layers ([{layer_name, key}]). */
  layers: string;
  doc: string;
  preview_doc: string;
}

/** A rule the JSON Schema cannot express, broken by an otherwise well-formed order. */
export interface OrderRuleViolation {
  /** Path below the order, e.g. `review_timestamp`. */
  path: string;
  message: string;
}

/** UTC with `Z` and at most six fraction digits: nothing to shift or round, only digits to pad. */
const UTC_MICROS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,6})?Z$/;

/** The `YYYY-MM-DDTHH:MM:SS` of a UTC_MICROS text names a real second of the years 0100-9999. */
function isRealUtcWallClock(value: string): boolean {
  const num = (at: number, length: number) => {
    let n = 0;
    for (let i = at; i < at + length; i++) n = n * 10 + value.charCodeAt(i) - 48;
    return n;
  };
  const year = num(0, 4);
  const month = num(5, 2);
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 ? (leap ? 29 : 28) : month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
  const day = num(8, 2);
  return year >= 100 && month >= 1 && month <= 12 && day >= 1 && day <= days && num(11, 2) <= 23 && num(14, 2) <= 59 && num(17, 2) <= 59;
}
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})$/;
const MICROS_PER_SECOND = 1_000_000n;

/**
 * Normalizes an RFC 3339 timestamp to UTC at the database's precision, microseconds, so that the stored
 * documents say exactly the instant the row stores (and the page cursor uses): `...17.123Z` when the
 * instant has no sub-millisecond digits (as `Date#toISOString` writes it), else `...17.123456Z`. Digits
 * below the microsecond are rounded. Null when the text is not a real instant.
 */
export function normalizeTimestamp(value: string): string | null {
  // Most timestamps arrive in UTC at microsecond precision or coarser (every document certdesk writes,
  // most imports): a range check of the wall clock (no Feb 30, no 24:00, no leap second) and the digits
  // padded, instead of the arithmetic of normalizeAny. Years 0000-0099 take the long way, which refuses
  // them (as it always has).
  if (UTC_MICROS.test(value) && isRealUtcWallClock(value)) {
    const digits = value.slice(20, -1).padEnd(6, '0');
    return `${value.slice(0, 19)}.${digits.endsWith('000') ? digits.slice(0, 3) : digits}Z`;
  }
  return normalizeAny(value);
}

/** normalizeTimestamp for any RFC 3339 form: offsets, lower case, 0 to 9 fraction digits. */
function normalizeAny(value: string): string | null {
  const m = RFC3339.exec(value);
  if (!m) return null;
  const [, year, month, day, hour, minute, second, fraction = '', zone] = m as unknown as [string, string, string, string, string, string, string, string | undefined, string];
  // Date.parse rolls over impossible dates (Feb 30): refuse them by comparing the calendar date back.
  if (new Date(Date.UTC(Number(year), Number(month) - 1, Number(day))).toISOString().slice(0, 10) !== `${year}-${month}-${day}`) return null;
  const wholeSecondMs = Date.parse(`${year}-${month}-${day}T${hour}:${minute}:${second}${zone.toUpperCase()}`);
  if (Number.isNaN(wholeSecondMs)) return null;
  const micros = BigInt(wholeSecondMs) * 1000n + BigInt(Math.round(Number(fraction.padEnd(9, '0')) / 1000));
  const subSecond = ((micros % MICROS_PER_SECOND) + MICROS_PER_SECOND) % MICROS_PER_SECOND;
  const seconds = Number((micros - subSecond) / MICROS_PER_SECOND);
  const digits = subSecond.toString().padStart(6, '0');
  return `${new Date(seconds * 1000).toISOString().slice(0, -5)}.${digits.endsWith('000') ? digits.slice(0, 3) : digits}Z`;
}

/** The rules of an order entering `organizationId` (seed, import) that the schema cannot express. */
export function checkOrderRules(input: OrderInputT, organizationId: string): OrderRuleViolation[] {
  const problems: OrderRuleViolation[] = [];
  const outside = `must be an object key under ${organizationKeyPrefix(organizationId)} (the order's organization)`;
  if (input.asset_preview_key != null && !isKeyOfOrganization(input.asset_preview_key, organizationId)) {
    problems.push({ path: 'asset_preview_key', message: outside });
  }
  (input.layers ?? []).forEach((layer, i) => {
    if (!isKeyOfOrganization(layer.key, organizationId)) problems.push({ path: `layers[${i}].key`, message: outside });
  });
  if (normalizeTimestamp(input.creation_time) === null) {
    problems.push({ path: 'creation_time', message: 'must be a real RFC 3339 date-time' });
  }
  if (input.review_timestamp != null && normalizeTimestamp(input.review_timestamp) === null) {
    problems.push({ path: 'review_timestamp', message: 'must be a real RFC 3339 date-time' });
  }
  const reviewedBy = input.reviewed_by ?? null;
  const reviewedAt = input.review_timestamp ?? null;
  if ((reviewedBy === null) !== (reviewedAt === null)) {
    problems.push({ path: reviewedBy === null ? 'reviewed_by' : 'review_timestamp', message: 'reviewed_by and review_timestamp must be set together' });
  }
  if (input.order_state === 'Reviewed' && (reviewedBy === null || reviewedAt === null)) {
    problems.push({ path: reviewedBy === null ? 'reviewed_by' : 'review_timestamp', message: 'a Reviewed order must have reviewed_by and review_timestamp' });
  }
  return problems;
}

function failedItem(item: NonNullable<OrderInputT['analysis_failed_items']>[number]): FailedAnalysisItemT {
  return {
    type: item.type,
    name: item.name,
    storage_path: item.storage_path,
    ai_likelihood: item.ai_likelihood ?? 0,
    annotation_ids: item.annotation_ids ?? [],
    annotation_id: item.annotation_id ?? null,
  };
}

function annotation(a: AnnotationT): AnnotationT {
  return {
    id: a.id ?? null,
    bodies: a.bodies ?? [],
    properties: {
      needs_remediation: a.properties?.needs_remediation ?? null,
      ai_likelihood: a.properties?.ai_likelihood ?? null,
    },
    target: a.target ?? null,
  };
}

function analysisLine(line: OrderAnalysisLineT): OrderAnalysisLineT {
  return { analysis_type: line.analysis_type, analysis_passed: line.analysis_passed };
}

/** A document the renderer cannot make (a field of the contract's shape has no value): a bug, never stored. */
export class OrderRenderError extends Error {
  override name = 'OrderRenderError';
  constructor(orderId: unknown, field: string) {
    super(`order ${String(orderId)}: cannot render its document, ${field} has no value`);
  }
}

/**
 * Refuses a document with a field left undefined: JSON.stringify would drop the key, and a listing would
 * serve an order without it. The write that asked for the rendering fails instead (its transaction with it).
 */
function assertRendered(orderId: unknown, fields: Record<string, unknown>): void {
  for (const key in fields) if (fields[key] === undefined) throw new OrderRenderError(orderId, key);
}

/** Call checkOrderRules first: this assumes a valid order. @throws OrderRenderError for a field without a value. */
export function toOrderRow(organizationId: string, input: OrderInputT): OrderRow {
  const creationTime = normalizeTimestamp(input.creation_time) as string;
  const reviewTimestamp = input.review_timestamp ? normalizeTimestamp(input.review_timestamp) : null;
  const analysisList = (input.analysis_list ?? []).map(analysisLine);
  const tags = input.tags ?? [];
  const doc = {
    order_id: input.order_id,
    username: input.username,
    email: input.email,
    order_state: input.order_state,
    order_title: input.order_title,
    asset_id: input.asset_id,
    asset_name: input.asset_name,
    asset_last_modified_timestamp: input.asset_last_modified_timestamp,
    ordered_by: input.ordered_by,
    creation_time: creationTime,
    analysis_list: analysisList,
    analysis_failed_items: (input.analysis_failed_items ?? []).map(failedItem),
    tags,
    confidence: input.confidence ?? 0,
    remediation: input.remediation ?? 0,
    annotations: (input.annotations ?? []).map(annotation),
    reviewed_by: input.reviewed_by ?? null,
    review_timestamp: reviewTimestamp,
  };
  const preview = {
    order_id: input.order_id,
    order_title: input.order_title,
    creation_time: creationTime,
    order_state: input.order_state,
    analysis_list: analysisList,
    tags,
  };
  assertRendered(input.order_id, doc);
  for (const line of analysisList) assertRendered(input.order_id, line);
  return {
    order_id: input.order_id,
    organization_id: organizationId,
    project_id: input.project_id ? input.project_id.toLowerCase() : null,
    owner_key: input.email.toLowerCase(),
    order_state: input.order_state,
    creation_time: creationTime,
    asset_preview_key: input.asset_preview_key ?? null,
    layers: JSON.stringify((input.layers ?? []).map((l) => ({ layer_name: l.layer_name, key: l.key }))),
    doc: JSON.stringify(doc),
    preview_doc: JSON.stringify(preview),
  };
}
