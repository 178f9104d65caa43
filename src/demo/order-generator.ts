/**
 * Generates realistic certificate orders from a seed and an index: order i depends only on (seed, i), so a
 * million orders stream in constant memory and the same seed always gives the same bytes.
 *
 * Annotation geometry is normalized: x, y, w, h, bounds and polygon points are fractions (0..1) of the
 * preview image's width and height, with (0, 0) at the top-left corner (docs/import.md).
 */
import { ORDER_STATES, type AnnotationT } from '../contract/schemas.js';
import type { OrderInputT } from '../domain/orders/order-input.schema.js';
import { mixSeed, seededRandom, type SeededRandom } from './random.js';

/** Someone who creates orders. */
export interface DemoPerson {
  email: string;
  username: string;
}

export interface OrderGeneratorOptions {
  seed: number;
  /** Prefix of order ids, e.g. `acme` gives `acme-000042`. */
  prefix: string;
  /** Who creates orders (at least one). */
  people: readonly DemoPerson[];
  /** Projects orders go to; null entries make personal orders. */
  projectIds: ReadonlyArray<string | null>;
  /** Who reviews Reviewed orders. */
  reviewerEmail: string;
  /** The newest creation_time; orders go back in time from it. */
  newest: Date;
  /** Mean minutes between consecutive orders. */
  spacingMinutes?: number;
  /** Object key of order i's preview, or null when the order has none. */
  previewKey?: (index: number) => string | null;
  /** Object keys of order i's layers. */
  layerKeys?: (index: number) => Array<{ layer_name: string; key: string }>;
}

/** The analysis checks in the order they run (docs/lifecycle.md). */
export const ANALYSIS_CHECKS = ['file_type', 'metadata', 'layer_check', 'ai_detection'] as const;
const SUBJECTS = ['Harbour at dusk', 'Mountain lodge', 'City skyline', 'Portrait study', 'Product shot', 'Forest trail', 'Poster concept', 'Album cover', 'Storyboard panel', 'Character sheet'];
/** Formats the file_type check accepts, and some it refuses (an Unsupported File's asset has one of those). */
const ACCEPTED_EXTENSIONS = ['psd', 'png', 'tiff', 'jpg', 'webp'] as const;
const UNSUPPORTED_EXTENSIONS = ['ai', 'pdf', 'heic', 'svg'] as const;
/**
 * ai_likelihood above which a region becomes a failed item: the highest object_flag_threshold of the demo
 * projects (0.6 and 0.7), so a flagged region is flagged in every project. Regions that are not flagged
 * stay below QUIET_BELOW, the lowest threshold and then some.
 */
export const DEMO_FLAG_THRESHOLD = 0.7;
export const QUIET_BELOW = 0.5;
const TAGS = ['campaign', 'print', 'social', 'urgent', 'client-review', 'archive', 'web', 'draft'];
const ARTISTS = ['Mara Lind', 'Kenji Sato', 'Ines Duarte', 'Tom Becker', 'Aisha Khan', 'Lucas Moreau'];

const round = (n: number) => Math.round(n * 1000) / 1000;

function rectangle(rng: SeededRandom): AnnotationT['target'] & object {
  const w = 0.1 + rng.next() * 0.3;
  const h = 0.1 + rng.next() * 0.3;
  const x = rng.next() * (1 - w);
  const y = rng.next() * (1 - h);
  return {
    annotation: '',
    selector: {
      type: 'RECTANGLE',
      geometry: { bounds: { minX: round(x), minY: round(y), maxX: round(x + w), maxY: round(y + h) }, x: round(x), y: round(y), w: round(w), h: round(h) },
    },
  };
}

function polygon(rng: SeededRandom): AnnotationT['target'] & object {
  const cx = 0.2 + rng.next() * 0.6;
  const cy = 0.2 + rng.next() * 0.6;
  const corners = 3 + rng.int(4);
  const points: number[][] = [];
  for (let k = 0; k < corners; k++) {
    const angle = (2 * Math.PI * k) / corners;
    const radius = 0.08 + rng.next() * 0.12;
    points.push([round(Math.min(1, Math.max(0, cx + radius * Math.cos(angle)))), round(Math.min(1, Math.max(0, cy + radius * Math.sin(angle))))]);
  }
  const xs = points.map((p) => p[0]!);
  const ys = points.map((p) => p[1]!);
  return {
    annotation: '',
    selector: { type: 'POLYGON', geometry: { bounds: { minX: Math.min(...xs), minY: Math.min(...ys), maxX: Math.max(...xs), maxY: Math.max(...ys) }, points } },
  };
}

/**
 * Regions an ai_detection run returns. With `flagged`, the first region lies above the flag threshold (and
 * the others anywhere); without it every region lies below, so none becomes a failed item.
 */
function annotations(rng: SeededRandom, orderId: string, count: number, flagged: boolean): AnnotationT[] {
  const out: AnnotationT[] = [];
  for (let k = 1; k <= count; k++) {
    const id = `${orderId}-ann-${k}`;
    const likelihood =
      flagged && (k === 1 || rng.chance(0.5))
        ? round(DEMO_FLAG_THRESHOLD + 0.01 + rng.next() * (0.99 - DEMO_FLAG_THRESHOLD))
        : round(rng.next() * (QUIET_BELOW - 0.01));
    const target = rng.chance(0.5) ? rectangle(rng) : polygon(rng);
    target.annotation = id;
    out.push({
      id,
      bodies: [{ value: likelihood > DEMO_FLAG_THRESHOLD ? 'Likely AI-generated region' : 'Consistent with manual work', id: `${id}-body`, annotation: id }],
      properties: { needs_remediation: likelihood > DEMO_FLAG_THRESHOLD, ai_likelihood: likelihood },
      target,
    });
  }
  return out;
}

type OrderState = (typeof ORDER_STATES)[number];
type AnalysisLine = { analysis_type: string; analysis_passed: boolean };

/** Where an order stands along the lifecycle: which checks ran and how, whether regions were flagged, who reviewed. */
interface LifecyclePlan {
  analysis: AnalysisLine[];
  /** ai_detection ran (so there may be regions). */
  detected: boolean;
  /** Regions above the threshold became failed items. */
  flagged: boolean;
  reviewed: boolean;
}

const lines = (passed: readonly boolean[]): AnalysisLine[] =>
  passed.map((analysis_passed, k) => ({ analysis_type: ANALYSIS_CHECKS[k]!, analysis_passed }));

/**
 * The analysis and review an order in `state` has had, following docs/lifecycle.md: a file_type failure
 * stops everything (Unsupported File); flagged regions wait for the customer (Action Required, no
 * reviewer); a certificate needs every check passed and a reviewer; Failed has a failing check or a
 * reviewer's refusal.
 */
function planFor(state: OrderState, rng: SeededRandom): LifecyclePlan {
  switch (state) {
    case 'In Progress': {
      // Analysis partly done, or done and clean and waiting for a reviewer.
      const ran = rng.int(ANALYSIS_CHECKS.length + 1);
      return { analysis: lines(Array(ran).fill(true)), detected: ran === ANALYSIS_CHECKS.length, flagged: false, reviewed: false };
    }
    case 'Unsupported File':
      return { analysis: lines([false]), detected: false, flagged: false, reviewed: false };
    case 'Action Required':
      return { analysis: lines([true, rng.chance(0.8), true, false]), detected: true, flagged: true, reviewed: false };
    case 'Human Certified':
      return { analysis: lines([true, true, true, true]), detected: true, flagged: false, reviewed: true };
    case 'Reviewed': {
      // Findings recorded without certifying: the analysis may have flagged regions or not.
      const flagged = rng.chance(0.5);
      return { analysis: lines([true, rng.chance(0.7), true, !flagged]), detected: true, flagged, reviewed: true };
    }
    case 'Failed': {
      if (rng.chance(0.5)) {
        // A reviewer refused an order whose analysis was clean.
        return { analysis: lines([true, true, true, true]), detected: true, flagged: false, reviewed: true };
      }
      // A failing check: the metadata declares a generator, or detection scored above the threshold.
      const metadataFails = rng.chance(0.5);
      const flagged = !metadataFails || rng.chance(0.5);
      return { analysis: lines([true, !metadataFails, true, !flagged]), detected: true, flagged, reviewed: rng.chance(0.5) };
    }
  }
}

/** Order number index of the stream defined by options. */
export function generateOrder(options: OrderGeneratorOptions, index: number): OrderInputT {
  const rng = seededRandom(mixSeed(options.seed, index));
  const orderId = `${options.prefix}-${String(index).padStart(6, '0')}`;
  const state = ORDER_STATES[index % ORDER_STATES.length]!;
  const person = options.people[rng.int(options.people.length)]!;
  const projectId = options.projectIds.length > 0 ? options.projectIds[rng.int(options.projectIds.length)]! : null;
  const spacing = (options.spacingMinutes ?? 37) * 60_000;
  // Whole seconds keep the timestamp text identical after normalization.
  const created = new Date(Math.floor((options.newest.getTime() - index * spacing - rng.int(spacing)) / 1000) * 1000);
  const subject = rng.pick(SUBJECTS);
  const plan = planFor(state, rng);
  const accepted = plan.analysis[0]?.analysis_passed !== false;
  // Layers exist once layer_check ran on an accepted file, and only a PSD has them.
  const layers = accepted && plan.analysis.length > 2 ? (options.layerKeys?.(index) ?? []) : [];
  const extension = !accepted ? rng.pick(UNSUPPORTED_EXTENSIONS) : layers.length > 0 ? 'psd' : rng.pick(ACCEPTED_EXTENSIONS);
  const notes = plan.flagged
    ? annotations(rng, orderId, 1 + rng.int(2), true)
    : plan.detected && rng.chance(0.3)
      ? annotations(rng, orderId, 1, false)
      : [];
  const order: OrderInputT = {
    order_id: orderId,
    username: person.username,
    email: person.email,
    order_state: state,
    order_title: `${subject} #${index}`,
    asset_id: `asset-${orderId}`,
    asset_name: `${subject.toLowerCase().replace(/\s+/g, '-')}-${index}.${extension}`,
    asset_last_modified_timestamp: String(Math.floor(created.getTime() / 1000) - 3600 - rng.int(86_400)),
    ordered_by: rng.chance(0.3) ? null : rng.pick(ARTISTS),
    creation_time: created.toISOString().replace('.000Z', 'Z'),
    analysis_list: plan.analysis,
    analysis_failed_items: notes
      .filter((a) => (a.properties?.ai_likelihood ?? 0) > DEMO_FLAG_THRESHOLD)
      .map((a, k) => ({
        type: k % 2 === 0 ? 'layer' : 'object',
        name: k % 2 === 0 ? `Layer ${k + 1}` : `Object ${k + 1}`,
        storage_path: `orders/${orderId}/items/${k + 1}.png`,
        ai_likelihood: a.properties?.ai_likelihood ?? 0,
        annotation_ids: [a.id as string],
        annotation_id: a.id ?? null,
      })),
    tags: TAGS.filter(() => rng.chance(0.2)),
    confidence: plan.detected ? round(0.5 + rng.next() * 0.5) : 0,
    remediation: plan.flagged ? rng.pick([0, 0.5, 1]) : 0,
    annotations: notes,
    reviewed_by: plan.reviewed ? options.reviewerEmail : null,
    review_timestamp: plan.reviewed ? new Date(created.getTime() + 3_600_000 + rng.int(48) * 3_600_000).toISOString().replace('.000Z', 'Z') : null,
    project_id: projectId,
    asset_preview_key: accepted ? (options.previewKey?.(index) ?? null) : null,
    layers,
  };
  return order;
}
