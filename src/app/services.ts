/**
 * The composition root: every long-lived service of a certdesk process, built once from the configuration
 * and the open database, then handed to the entry points: the HTTP application (API, token service, web
 * pages: `http/app.ts`), the background job worker (`serve`, `certdesk worker`) and the CLI commands.
 * Nothing else builds its own copy of these; features declare what they need and are given it.
 *
 *   config ─┐
 *   database┼─> createServices() ─> Services ─┬─> buildApp(services)      (http/, oauth/, web/)
 *   (tests: │                                  ├─> services.jobs.start()  (jobs/)
 *    storage,                                  └─> CLI commands          (cli/)
 *    clock, limiters, metrics, tuning)
 *
 * The database is opened (and closed) by the caller: a CLI command may go through a running server's
 * socket, a test may share one database between several applications.
 *
 * @example
 * const services = await createServices({ config, database });
 * const app = await buildApp(services);
 * await app.listen({ port: config.port });
 * // ... on shutdown:
 * await app.close();
 * await services.close();
 * await database.close();
 */
import { randomUUID } from 'node:crypto';
import pino, { type Logger } from 'pino';
import type { Config } from '../config.js';
import { systemClock, type Clock } from '../domain/time/clock.js';
import { DecoderPool } from '../domain/analysis/decoding/decoder-pool.js';
import { imageLimitsFrom } from '../domain/analysis/decoding/image-limits.js';
import { createOrdersContext } from '../domain/orders/index.js';
import { findPublicCertificate, toPublicCertificateObject, type CertificateDeps } from '../domain/certificates/index.js';
import { loggerSettings, prettyLogStream, readableLogs } from '../http/plugins/request-logging.js';
import { detectionServiceFrom } from '../integrations/detection-service/index.js';
import { JobRuntime } from '../jobs/job-runtime.js';
import type { DeliverySchedule } from '../domain/webhooks/delivery.js';
import { WebhookSender } from '../integrations/webhook-sender/webhook-sender.js';
import { countJobs } from '../jobs/job.repository.js';
import { countWebhookBacklog } from '../domain/webhooks/webhook.repository.js';
import { sampleDocumentDrift } from '../domain/orders/order-documents.service.js';

import { clusterMetricsRenderer } from '../cluster/cluster-metrics.js';
import { isClusterWorker } from '../cluster/serve-cluster.js';
import { createServiceMetrics, type ServiceMetrics } from '../metrics/service-metrics.js';
import { startOAuthServices, type OAuthTuning } from '../oauth/index.js';
import { createBruteForceLimiters, openFailureStore, type BruteForceLimiters } from '../rate-limit/index.js';
import { UploadLimits } from '../domain/intake/upload-limits.js';
import type { DatabaseHandle } from '../storage/database.js';
import { HmacUploadPresigner, openObjectStorage, S3ObjectStorage, type ObjectStorage } from '../storage/object-storage/index.js';
import { describeFailure, isDatabaseUnavailable } from '../storage/database-availability.js';
import { CLIENT_ACCESS_CHANNEL, JOBS_CHANNEL } from '../storage/notifications.js';
import { SERVER_SECRET, serverSecret } from '../storage/server-secrets.js';
import { logDatabaseOutages } from './database-outage-log.js';
import { reviewCertificateIssuer } from '../domain/review/certificate-seam.js';
import { openPublicCertificateCache } from '../http/public-certificate-cache.js';
import type { Clock as CacheClock } from '../clock.js';
import { CredentialPool } from '../domain/content-credentials/credential-pool.js';
import { ensureC2paSigner } from '../domain/content-credentials/signing-chain.js';
import { serviceVersion } from '../paths.js';
import type { AppServices } from '../http/app-services.js';
import { openTransparencyLog } from '../domain/transparency-log/index.js';
import { LOG_TILE_CACHE_BYTES, LogTileCache } from '../http/log-tile-cache.js';

/** Stored order documents checked against the renderer at each /metrics scrape (a few ms of CPU). */
const DRIFT_SAMPLE_ORDERS = 50;

/** What a caller may bring instead of the configured default (tests, benchmarks). */
export interface ServiceInput {
  config: Config;
  database: DatabaseHandle;
  /** Object storage of assets, previews and layers; default: the one the configuration names. */
  storage?: ObjectStorage;
  /** Time of domain writes (orders, uploads, jobs); default: the system clock. */
  clock?: Clock;
  /** Brute-force guards; default: over the configured failure store (Redis or in-process). */
  limiters?: BruteForceLimiters;
  /** Prometheus metrics; default: a registry of this process's own, with process metrics. */
  metrics?: ServiceMetrics;
  /** The process logger; default: built from the configuration (JSON, or readable in development). */
  log?: Logger;
  /** Token service timings (tests shorten or move them). */
  oauth?: OAuthTuning;
  /** Settings of the job worker that a test drives (poll interval, lease, backoff). */
  jobs?: ConstructorParameters<typeof JobRuntime>[0]['worker'];
  /** Webhook delivery timings (tests shorten the 15 s deadline and the retry schedule). */
  webhooks?: { timeoutMs?: number; schedule?: DeliverySchedule; random?: () => number };
  /** Time of the public certificate cache (epoch ms); default: the system clock. */
  publicCertificateClock?: CacheClock;
  /** Transparency log sequencer timings (tests shorten the lease or the poll interval). */
  transparencyLog?: { leaseMs?: number; pollMs?: number; batchSize?: number };
}

/**
 * The process's long-lived services: what the HTTP application is given (`AppServices`, declared by the
 * http layer that uses them), and what only the process itself holds.
 */
export interface Services extends AppServices {
  /** Threads where c2pa-rs makes credentialed files (threads start on first use). */
  readonly credentialPool: CredentialPool;
  /** Stops jobs and timers and closes the failure store; the database stays open (its opener closes it). */
  close(): Promise<void>;
}

/** The process logger the configuration asks for: JSON lines, readable lines in development, or silent. */
export function createLogger(config: Pick<Config, 'env' | 'logLevel'>): Logger {
  const settings = loggerSettings(config);
  if (!settings) return pino({ level: 'silent' });
  return readableLogs(config) ? pino(settings, prettyLogStream()) : pino(settings);
}

/**
 * Builds every long-lived service once. Reads the deployment's secrets (page-token and presign keys) and
 * starts the token service's key store, so the database must be reachable and migrated.
 */
export async function createServices(input: ServiceInput): Promise<Services> {
  const { config, database } = input;
  const db = database.db;
  const log = input.log ?? createLogger(config);
  const clock = input.clock ?? systemClock;
  const storage = input.storage ?? openObjectStorage(config);
  const orders = await createOrdersContext(db, config, { hotReads: database.hotReads });
  const uploadSigner = new HmacUploadPresigner(await serverSecret(db, SERVER_SECRET.presign), config.publicBaseUrl);
  // One rate-limit store (Redis when REDIS_URL is set) for the brute-force guards and the upload rate; a
  // caller that brings its own guards gets a store of its own for uploads.
  const sharedStore = input.limiters ? null : openFailureStore(config);
  const limiters = input.limiters ?? createBruteForceLimiters({ store: sharedStore!, log });
  const uploadRateStore = sharedStore ?? openFailureStore(config);
  const uploadLimits = new UploadLimits(db, clock, config, uploadRateStore, (err) => log.warn({ err }, 'upload rate limit store unavailable; not limiting'));
  const ownMetrics = input.metrics ?? createServiceMetrics({ instance: config.instanceName });
  ownMetrics.observeDatabase(database);
  ownMetrics.observeJobQueue(() => countJobs(db));
  ownMetrics.observeWebhooks(() => countWebhookBacklog(db));
  ownMetrics.observeDocumentDrift(() => sampleDocumentDrift(db, DRIFT_SAMPLE_ORDERS));
  // In a `serve --workers N` worker, /metrics shows the whole cluster (summed by the primary).
  const metrics: ServiceMetrics = isClusterWorker() ? { ...ownMetrics, render: clusterMetricsRenderer(ownMetrics.registry) } : ownMetrics;
  const oauth = await startOAuthServices({ db, config, log, limiter: limiters.tokenEndpoint, tuning: input.oauth });
  // Threads start on first use: a process that runs no analysis (CLI commands) never starts one.
  const decoder = new DecoderPool({
    limits: imageLimitsFrom(config),
    threads: config.analysisDecoderThreads,
    heapMb: config.analysisDecoderHeapMb,
    onThreadCrash: (err, blamed) => log.error({ err, blamed }, blamed === 'file' ? 'a file crashed its decoder thread' : 'decoder threads are failing'),
  });
  // Content Credentials (docs/content-credentials.md): the signing chain is made on first start, or is the operator's.
  const c2paSigner = await ensureC2paSigner(db, {
    masterKey: config.masterKey,
    publicBaseUrl: config.publicBaseUrl,
    chainPath: config.c2paCertificateChain,
    keyPath: config.c2paPrivateKey,
  });
  if (c2paSigner.source === 'generated' && config.env !== 'development') {
    log.warn(
      { c2paSigner: c2paSigner.signerId },
      'Content Credentials are signed with a chain generated for this deployment: C2PA verifiers call them untrusted until they add its root (/.well-known/c2pa-trust-anchors.pem); set C2PA_CERTIFICATE_CHAIN and C2PA_PRIVATE_KEY to sign with a chain from a C2PA-trusted authority',
    );
  }
  const credentialPool = new CredentialPool({
    threads: 1,
    heapMb: config.analysisDecoderHeapMb,
    onThreadCrash: (err, blamed) => log.error({ err, blamed }, blamed === 'file' ? 'a file crashed its Content Credentials thread' : 'Content Credentials threads are failing'),
  });
  const webhookSender = new WebhookSender({ timeoutMs: input.webhooks?.timeoutMs, allowPrivate: config.webhookAllowPrivate });
  const jobs = new JobRuntime({
    db,
    clock,
    storage,
    decoder,
    detection: detectionServiceFrom(config),
    concurrency: Math.max(1, config.workerConcurrency),
    retry: { baseMs: config.jobRetryBaseMs, capMs: Math.max(config.jobRetryBaseMs, config.jobRetryCapMs) },
    observer: { attemptFinished: (kind, outcome, seconds) => ownMetrics.recordJobAttempt(kind, outcome, seconds) },
    // An unreachable database is logged once per outage (below), not once per poll.
    onError: (err) => {
      if (!isDatabaseUnavailable(err)) log.error({ err }, 'job queue error');
    },
    // The worker id names the instance (jobs.locked_by shows who runs what) and stays unique when two
    // processes are given the same INSTANCE_NAME.
    worker: { leaseMs: config.jobLeaseSeconds * 1000, workerId: `${config.instanceName}/${randomUUID().slice(0, 8)}`, ...input.jobs },
    // On PostgreSQL, claims carry this process's listening session: a killed instance's jobs are taken over
    // as soon as PostgreSQL drops its session, not a lease later (jobs/job.repository.ts).
    session: database.notifications ? () => database.notifications?.liveSession ?? null : undefined,
    contentCredentials: {
      pool: credentialPool,
      signer: async () => c2paSigner,
      issuerUrl: config.issuerUrl,
      publicBaseUrl: config.publicBaseUrl,
      generatorVersion: serviceVersion(),
      maxManifestBytes: config.analysisMaxMetadataBytes,
      // The file carries the log's proof from the start: the job waits for sequencing (bounded, see the job).
      transparencyLog: async (executor, certificateId) => {
        const row = await findPublicCertificate(executor, certificateId);
        return row ? toPublicCertificateObject(row).transparency_log : null;
      },
    },
    webhooks: {
      transport: webhookSender,
      masterKey: config.masterKey,
      schedule: input.webhooks?.schedule,
      random: input.webhooks?.random,
      observer: {
        attempted: (outcome, seconds) => ownMetrics.recordWebhookDelivery(outcome, seconds),
        dropped: (reason) => ownMetrics.recordWebhookDropped(reason),
      },
    },
  });
  // On PostgreSQL every instance hears what the others change (storage/notifications.ts): queued jobs wake
  // every worker, so jobs spread over the fleet instead of staying with the instance that queued them, and a
  // changed API client is forgotten by every client cache at once (the public certificate cache subscribes
  // on the same connection, below). Embedded PGlite is one process: none.
  const notifications = database.notifications ?? null;
  const unsubscribe: Array<() => void> = [];
  if (notifications) {
    notifications.onError = (err) => {
      // An outage is the outage log's (one line); anything else is one line without a stack.
      if (!isDatabaseUnavailable(err)) log.warn({ reason: describeFailure(err) }, 'database notifications interrupted; jobs are polled and public certificates read from the database until they are back');
    };
    unsubscribe.push(await notifications.subscribe(JOBS_CHANNEL, () => jobs.nudge()));
    // null when the connection is lost and after a reconnect: whatever changed meanwhile is unknown, so every entry goes.
    unsubscribe.push(await notifications.subscribe(CLIENT_ACCESS_CHANNEL, (clientId) => (clientId ? oauth.clients.invalidate(clientId) : oauth.clients.clear())));
  }
  const stopOutageLog = logDatabaseOutages(database, log);
  const certificates: CertificateDeps = {
    clock,
    signingKey: () => oauth.keys.current().signing,
    issuerUrl: config.issuerUrl,
    publicBaseUrl: config.publicBaseUrl,
  };
  const publicCertificates = openPublicCertificateCache({
    database,
    maxBytes: config.publicCertificateCacheMb * 1024 * 1024,
    ttlMs: config.publicCertificateCacheTtlSeconds * 1000,
    clock: input.publicCertificateClock,
  });
  // One sequencer leads across every instance (a lease on PostgreSQL, taken over at once from a process
  // whose session is gone); the embedded database has one process, whose lease it always is.
  const transparencyLog = openTransparencyLog({
    db,
    storage,
    masterKey: config.masterKey,
    publicBaseUrl: config.publicBaseUrl,
    sequencerId: `${config.instanceName}/${randomUUID().slice(0, 8)}`,
    session: notifications ? () => notifications.liveSession : undefined,
    exclusive: database.kind === 'pglite',
    log,
    ...input.transparencyLog,
  });
  let closed: Promise<void> | null = null;
  return {
    config,
    database,
    clock,
    log,
    storage,
    orders,
    objectUrls: orders.presigner,
    uploadPresigner: storage instanceof S3ObjectStorage ? storage : uploadSigner,
    uploadSigner,
    limiters,
    uploadLimits,
    metrics,
    oauth,
    certificates,
    jobs,
    decoder,
    // While notifications flow, the job's own NOTIFY wakes every instance, this one included: a local wake-up
    // on top would hand this instance every job it queues.
    jobQueued: () => {
      if (!notifications?.listening) jobs.nudge();
    },
    reviewCertificateIssuer: reviewCertificateIssuer(db, storage, certificates),
    publicCertificates: publicCertificates.cache,
    c2paSigner,
    credentialPool,
    transparencyLog,
    logTiles: new LogTileCache(LOG_TILE_CACHE_BYTES),
    close: () =>
      (closed ??= (async () => {
        await transparencyLog.sequencer.stop();
        // Jobs still running after a short wait are left to their lease: another worker runs them again.
        await jobs.stop(Math.min(5000, config.shutdownGracePeriodSeconds * 250));
        for (const stop of unsubscribe) stop();
        await decoder.close();
        await credentialPool.close();
        await publicCertificates.close();
        webhookSender.close();
        stopOutageLog();
        await oauth.stop();
        // Limiters a caller brought are the caller's to close.
        if (!input.limiters) await limiters.close();
        else await uploadRateStore.close();
      })()),
  };
}
