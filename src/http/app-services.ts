/**
 * What the HTTP application and the features mounted on it (API routes, the token service, the web pages)
 * are given as `app.services`: the process's long-lived services, declared here by the layer that uses
 * them so that http/ depends on their shape, not on the composition root that builds them
 * (src/app/services.ts, whose `Services` extends this interface). A service a route starts using is
 * declared here, once.
 *
 * `close()` is not part of it: the services belong to the process, which closes them after the app.
 */
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Clock } from '../domain/time/clock.js';
import type { DecoderPool } from '../domain/analysis/decoding/decoder-pool.js';
import type { OrdersContext } from '../domain/orders/index.js';
import type { CertificateDeps } from '../domain/certificates/index.js';
import type { UploadLimits } from '../domain/intake/upload-limits.js';
import type { CertificateIssuer } from '../domain/review/certificate-seam.js';
import type { JobRuntime } from '../jobs/job-runtime.js';
import type { ServiceMetrics } from '../metrics/service-metrics.js';
import type { OAuthServices } from '../oauth/index.js';
import type { BruteForceLimiters } from '../rate-limit/index.js';
import type { DatabaseHandle } from '../storage/database.js';
import type { HmacUploadPresigner, ObjectStorage, UploadPresigner } from '../storage/object-storage/index.js';
import type { HmacUrlPresigner } from '../storage/object-storage/presign.js';
import type { PublicCertificateCache } from './public-certificate-cache.js';
import type { TransparencyLog } from '../domain/transparency-log/index.js';
import type { LogTileCache } from './log-tile-cache.js';
import type { C2paSigner } from '../domain/content-credentials/signing-chain.js';

export interface AppServices {
  readonly config: Config;
  readonly database: DatabaseHandle;
  readonly clock: Clock;
  readonly log: Logger;
  readonly storage: ObjectStorage;
  /** Page tokens and the presigner of preview and layer URLs: what order reads need (API and web). */
  readonly orders: OrdersContext;
  /** The same presigner, typed for verifying `GET /objects/...` signatures. */
  readonly objectUrls: HmacUrlPresigner;
  /** Presigned PUTs of `POST /v1/uploads`: the bucket's own (S3) or the service's HMAC one (local). */
  readonly uploadPresigner: UploadPresigner;
  /** Verifies the HMAC upload URLs that `PUT /objects/...` receives (local storage). */
  readonly uploadSigner: HmacUploadPresigner;
  readonly limiters: BruteForceLimiters;
  /** Per-user upload limits (outstanding uploads and bytes, creation rate), counted in the shared store. */
  readonly uploadLimits: UploadLimits;
  readonly metrics: ServiceMetrics;
  readonly oauth: OAuthServices;
  /** What issuing a certificate needs: the clock, the current signing key, the issuer and public URLs. */
  readonly certificates: CertificateDeps;
  /** Background jobs of this process (tests run them through the app: `app.services.jobs.worker.runDue()`). */
  readonly jobs: JobRuntime;
  /** Worker threads that decode images for the analysis jobs. */
  readonly decoder: DecoderPool;
  /** Wakes this process's worker: a request just queued a job. */
  jobQueued(): void;
  /** The certificate issued with a `Certify` decision (docs/review.md). */
  readonly reviewCertificateIssuer: CertificateIssuer;
  /** Rendered public certificate answers (API and badge), dropped everywhere when one changes. */
  readonly publicCertificates: PublicCertificateCache;
  /** The public transparency log: its key and its sequencer (started by `serve` and `certdesk worker`). */
  readonly transparencyLog: TransparencyLog;
  /** The log's tiles and bundles read from object storage, kept (their bytes never change). */
  readonly logTiles: LogTileCache;
  /** The chain that signs Content Credentials (docs/content-credentials.md). */
  readonly c2paSigner: C2paSigner;
}
