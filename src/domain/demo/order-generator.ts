/**
 * Generates realistic certificate orders from a seed and an index: order i depends only on (seed, i), so a
 * million orders stream in constant memory and the same seed always gives the same bytes.
 *
 * Annotation geometry is normalized: x, y, w, h, bounds and polygon points are fractions (0..1) of the
 * preview image's width and height, with (0, 0) at the top-left corner (docs/import.md).
 */
import { ORDER_STATES, type AnnotationT } from '../../contract/schemas.js';
import type { OrderInputT } from '../orders/order-input.schema.js';
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

const ANALYSES = ['ai_generation', 'metadata', 'provenance', 'layer_structure', 'color_profile'] as const;
const SUBJECTS = ['Harbour at dusk', 'Mountain lodge', 'City skyline', 'Portrait study', 'Product shot', 'Forest trail', 'Poster concept', 'Album cover', 'Storyboard panel', 'Character sheet'];
const EXTENSIONS = ['psd', 'png', 'tiff', 'jpg', 'ai'] as const;
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

function annotations(rng: SeededRandom, orderId: string, count: number): AnnotationT[] {
  const out: AnnotationT[] = [];
  for (let k = 1; k <= count; k++) {
    const id = `${orderId}-ann-${k}`;
    const likelihood = round(rng.next());
    const target = rng.chance(0.5) ? rectangle(rng) : polygon(rng);
    target.annotation = id;
    out.push({
      id,
      bodies: [{ value: likelihood > 0.5 ? 'Likely AI-generated region' : 'Consistent with manual work', id: `${id}-body`, annotation: id }],
      properties: { needs_remediation: likelihood > 0.7, ai_likelihood: likelihood },
      target,
    });
  }
  return out;
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
  const extension = rng.pick(EXTENSIONS);
  const analysisList = ANALYSES.slice(0, 2 + rng.int(2)).map((analysis_type) => ({
    analysis_type,
    analysis_passed: state === 'Failed' || state === 'Action Required' ? rng.chance(0.4) : rng.chance(0.9),
  }));
  const flagged = state === 'Action Required' || state === 'Failed' || rng.chance(0.1);
  const notes = flagged ? annotations(rng, orderId, 1 + rng.int(2)) : [];
  const reviewed = state === 'Reviewed';
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
    analysis_list: analysisList,
    analysis_failed_items: notes
      .filter((a) => (a.properties?.ai_likelihood ?? 0) > 0.5)
      .map((a, k) => ({
        type: k % 2 === 0 ? 'layer' : 'object',
        name: k % 2 === 0 ? `Layer ${k + 1}` : `Object ${k + 1}`,
        storage_path: `orders/${orderId}/items/${k + 1}.png`,
        ai_likelihood: a.properties?.ai_likelihood ?? 0,
        annotation_ids: [a.id as string],
        annotation_id: a.id ?? null,
      })),
    tags: TAGS.filter(() => rng.chance(0.2)),
    confidence: state === 'In Progress' || state === 'Unsupported File' ? 0 : round(0.5 + rng.next() * 0.5),
    remediation: flagged ? rng.pick([0, 0.5, 1]) : 0,
    annotations: notes,
    reviewed_by: reviewed ? options.reviewerEmail : null,
    review_timestamp: reviewed ? new Date(created.getTime() + 3_600_000 + rng.int(48) * 3_600_000).toISOString().replace('.000Z', 'Z') : null,
    project_id: projectId,
    asset_preview_key: state === 'Unsupported File' ? null : (options.previewKey?.(index) ?? null),
    layers: options.layerKeys?.(index) ?? [],
  };
  return order;
}
