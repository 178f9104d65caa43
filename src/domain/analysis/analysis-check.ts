/**
 * The analysis pipeline's contract. An order's analysis job runs the checks in order; each check reads the
 * asset from object storage and returns one outcome, which the pipeline records as one `analysis_list`
 * entry (`analysis_type` = the check's name). Checks do not touch the database: the pipeline does, through
 * the lifecycle service, so every state change is checked and recorded in one place.
 *
 * Pipeline order: `file_type` (gatekeeper), then `metadata`, `layer_check`, `ai_detection` (see pipeline.ts).
 */
import type { AnnotationT, FailedAnalysisItemT } from '../../contract/schemas.js';
import type { ObjectStorage } from '../../storage/object-storage/index.js';
import type { ImageDecoder } from './decoding/image-decoder.js';

/** What a check knows about the order it analyzes. */
export interface AnalysisSubject {
  orderId: string;
  organizationId: string;
  projectId: string | null;
  assetKey: string;
  /** As announced by the client (never trusted for the format: `file_type` reads the bytes). */
  assetContentType: string;
  assetSize: number;
}

export interface AnalysisContext {
  subject: AnalysisSubject;
  storage: ObjectStorage;
  /** The first `bytes` bytes of the asset (cached per job). */
  readHead(bytes: number): Promise<Buffer>;
  /** The whole asset (cached per job; assets are bounded by MAX_UPLOAD_BYTES). */
  readAll(): Promise<Buffer>;
  /** Decodes the asset (header check, metadata, renderings) outside the HTTP thread: decoding/. */
  decoder: ImageDecoder;
  /** Facts earlier checks found (e.g. `file_type` puts the detected format under `format`). */
  facts: Map<string, unknown>;
  signal: AbortSignal;
}

/** Objects a check rendered and stored for the order (`layer_check`): they become its preview and layers. */
export interface CheckRenditions {
  previewKey: string;
  layers: Array<{ layer_name: string; key: string }>;
}

/** What a check adds to the order besides its entry (annotations and items a reviewer should see). */
interface CheckFindings {
  failedItems?: FailedAnalysisItemT[];
  annotations?: AnnotationT[];
  renditions?: CheckRenditions;
}

export type CheckOutcome =
  /** The check ran and found nothing wrong (it may still leave annotations, e.g. regions below the threshold). */
  | ({ outcome: 'passed'; facts?: Record<string, unknown> } & CheckFindings)
  /** The check flags the asset: the order goes to `Action Required` once all checks ran. */
  | ({ outcome: 'failed'; reason: string } & CheckFindings)
  /** The file is not a format certdesk accepts: the order ends as `Unsupported File`, no later check runs. */
  | { outcome: 'unsupported'; reason: string }
  /** The check does not apply or is not configured (no `analysis_list` entry; nothing pretends to run). */
  | { outcome: 'not_run' };

/**
 * One check. Throwing means "could not decide": a PermanentJobError (a corrupt or truncated file) fails
 * the job at once; anything else (storage down) is retried with backoff. When the job fails for good the
 * order moves to `Failed` with this check's entry failed.
 */
export interface AnalysisCheck {
  /** The `analysis_type` of its entry. */
  readonly name: string;
  run(context: AnalysisContext): Promise<CheckOutcome>;
}
