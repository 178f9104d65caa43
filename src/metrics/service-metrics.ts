/**
 * The service's Prometheus metrics (prom-client), in a registry of their own so that several apps in
 * one process (tests) never share or double-register them. Built once by whoever composes the app and
 * handed to it; the HTTP layer records requests, the token endpoint its outcomes, the job worker its
 * attempts; the database figures and the job queue's gauges are read at scrape time.
 *
 * @example
 * const metrics = createServiceMetrics();
 * metrics.observeDatabase(database);
 * const app = await buildApp({ config, database, metrics });
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { JOB_KIND_DEFAULTS } from '../domain/background/job-kinds.js';
import type { DatabaseHandle } from '../storage/database.js';

/** Jobs by kind and state as the queue counts them (src/jobs/job.repository.ts `countJobs`). */
export interface JobQueueCount {
  kind: string;
  state: 'queued' | 'running' | 'failed';
  /** Of the queued ones: due now (the rest wait for their backoff). */
  due: number;
  count: number;
}

export interface ServiceMetrics {
  readonly registry: Registry;
  /** One finished HTTP request: `route` is the route pattern (never the raw URL). */
  recordRequest(labels: { method: string; route: string; status: number }, seconds: number): void;
  /** One access token issued by the token endpoint. */
  recordTokenIssued(): void;
  /** One token request refused, by its RFC 6749 error code. */
  recordTokenRefused(error: string): void;
  /** One request refused by a brute-force limiter (`token`, `sign_in`, ...). */
  recordRateLimitRefusal(limiter: string): void;
  /** Reports pool use, availability and error counts of this database at every scrape. */
  observeDatabase(database: DatabaseHandle): void;
  /** One finished job attempt, by kind and outcome (`done`, `retried`, `failed`, `hook_failed`, `lost`). */
  recordJobAttempt(kind: string, outcome: string, seconds: number): void;
  /** Reads the job queue's counts at every scrape (one cheap query; a failed read leaves the gauges out). */
  observeJobQueue(read: () => Promise<JobQueueCount[]>): void;
  /** One webhook delivery attempt, by outcome (`success`, `failure`, `disabled`: the failure disabled its endpoint), with the request's duration. */
  recordWebhookDelivery(outcome: string, seconds: number): void;
  /** A pending delivery dropped without a request (`endpoint_deleted`, `endpoint_disabled`). */
  recordWebhookDropped(reason: string): void;
  /** Reads the deliveries pending and the endpoints disabled at every scrape (a failed read leaves the gauges out). */
  observeWebhooks(read: () => Promise<WebhookBacklog>): void;
  /**
   * Reads a random sample of stored order documents checked against the renderer at every scrape
   * (src/domain/orders/order-documents.service.ts): how many were sampled and how many differ.
   */
  observeDocumentDrift(read: () => Promise<{ sampled: number; drifted: number }>): void;
  /** The exposition text and its content type. */
  render(): Promise<{ contentType: string; body: string }>;
}

/** Webhook figures read at scrape time (src/domain/webhooks/webhook.repository.ts `countWebhookBacklog`). */
export interface WebhookBacklog {
  /** Deliveries not yet settled (the outbox's backlog), and of them those due now. */
  pending: number;
  due: number;
  /** Endpoints disabled (by the service after a 410 or three days of failures, or by their administrators). */
  endpointsDisabled: number;
}

export interface ServiceMetricsOptions {
  /** Process metrics (CPU, memory, event loop, GC). Default true. */
  processMetrics?: boolean;
  /** This process's name (INSTANCE_NAME): the `instance` label of the per-instance job counter. */
  instance?: string;
}

/** Latency buckets in seconds: from a cached token (~1 ms) to a slow page. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Job attempt durations in seconds: a cleanup pass (~10 ms) to a large PSD behind a slow detection service. */
const JOB_DURATION_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];
/** Webhook request durations in seconds: a receiver next door (~1 ms) to the 15 s deadline. */
const WEBHOOK_LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15];
const JOB_GAUGE_STATES = ['waiting', 'scheduled', 'running', 'failed'] as const;

export function createServiceMetrics(options: ServiceMetricsOptions = {}): ServiceMetrics {
  const registry = new Registry();
  if (options.processMetrics ?? true) collectDefaultMetrics({ register: registry });

  const requests = new Counter({
    name: 'certdesk_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'certdesk_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const tokensIssued = new Counter({
    name: 'certdesk_oauth_tokens_issued_total',
    help: 'Access tokens issued by the token endpoint.',
    registers: [registry],
  });
  const tokensRefused = new Counter({
    name: 'certdesk_oauth_tokens_refused_total',
    help: 'Token requests refused, by RFC 6749 error code.',
    labelNames: ['error'] as const,
    registers: [registry],
  });
  const rateLimited = new Counter({
    name: 'certdesk_rate_limit_refusals_total',
    help: 'Requests refused by a brute-force limiter (429), by limiter.',
    labelNames: ['limiter'] as const,
    registers: [registry],
  });

  const jobAttempts = new Counter({
    name: 'certdesk_job_attempts_total',
    help: 'Background job attempts finished, by kind and outcome (done, retried, failed, hook_failed, lost).',
    labelNames: ['kind', 'outcome'] as const,
    registers: [registry],
  });
  // Who runs what in a fleet: every instance's /metrics counts the attempts it ran itself, so comparing
  // instances shows whether jobs spread (the queue gauges below are the shared table's, the same on all).
  const instance = options.instance ?? 'local';
  const jobsRun = new Counter({
    name: 'certdesk_jobs_run_total',
    help: 'Background job attempts this instance ran, by kind, outcome and instance (INSTANCE_NAME).',
    labelNames: ['kind', 'outcome', 'instance'] as const,
    registers: [registry],
  });
  const jobDuration = new Histogram({
    name: 'certdesk_job_duration_seconds',
    help: 'Run time of one background job attempt, by kind and outcome.',
    labelNames: ['kind', 'outcome'] as const,
    buckets: JOB_DURATION_BUCKETS,
    registers: [registry],
  });
  let readJobQueue: (() => Promise<JobQueueCount[]>) | null = null;
  new Gauge({
    name: 'certdesk_jobs',
    help: 'Background jobs now, by kind and state: waiting (due, not yet claimed), scheduled (waiting for a retry backoff), running, failed (kept a week).',
    labelNames: ['kind', 'state'] as const,
    registers: [registry],
    // Every process of `serve --workers N` reads the same table: report it once, not N times.
    aggregator: 'max',
    async collect() {
      if (!readJobQueue) return;
      let counts: JobQueueCount[];
      try {
        counts = await readJobQueue();
      } catch {
        this.reset(); // database down: certdesk_db_up says so; no stale figures
        return;
      }
      const figures = new Map<string, number>();
      const add = (kind: string, state: string, n: number) => figures.set(`${kind}\u0000${state}`, (figures.get(`${kind}\u0000${state}`) ?? 0) + n);
      for (const kind of Object.keys(JOB_KIND_DEFAULTS)) for (const state of JOB_GAUGE_STATES) add(kind, state, 0);
      for (const c of counts) {
        if (c.state === 'queued') {
          add(c.kind, 'waiting', c.due);
          add(c.kind, 'scheduled', c.count - c.due);
        } else add(c.kind, c.state, c.count);
      }
      this.reset();
      for (const [key, n] of figures) {
        const [kind, state] = key.split('\u0000') as [string, string];
        this.set({ kind, state }, n);
      }
    },
  });

  const webhookDeliveries = new Counter({
    name: 'certdesk_webhook_deliveries_total',
    help: 'Webhook delivery attempts, by outcome: success (2xx), failure (anything else; retried), disabled (a 410, or the last failure of three days: the endpoint was disabled).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const webhookLatency = new Histogram({
    name: 'certdesk_webhook_delivery_duration_seconds',
    help: 'Time from sending a webhook request to its answer (or its failure), by outcome.',
    labelNames: ['outcome'] as const,
    buckets: WEBHOOK_LATENCY_BUCKETS,
    registers: [registry],
  });
  const webhookDropped = new Counter({
    name: 'certdesk_webhook_deliveries_dropped_total',
    help: 'Pending webhook deliveries dropped without a request, by reason: endpoint_deleted, endpoint_disabled.',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  for (const outcome of ['success', 'failure', 'disabled']) webhookDeliveries.inc({ outcome }, 0);
  let readWebhooks: (() => Promise<WebhookBacklog>) | null = null;
  // One read serves both gauges of a scrape.
  let webhookRead: Promise<WebhookBacklog | null> | null = null;
  const webhookFigures = () => {
    if (!readWebhooks) return Promise.resolve(null);
    webhookRead ??= readWebhooks()
      .catch(() => null)
      .finally(() => setImmediate(() => (webhookRead = null)));
    return webhookRead;
  };
  new Gauge({
    name: 'certdesk_webhook_deliveries_pending',
    help: 'Webhook deliveries not yet settled (the outbox backlog), by state: due (waiting to be sent now) or scheduled (waiting for a retry backoff).',
    labelNames: ['state'] as const,
    registers: [registry],
    aggregator: 'max', // every process reads the same table
    async collect() {
      const figures = await webhookFigures();
      this.reset();
      if (!figures) return;
      this.set({ state: 'due' }, figures.due);
      this.set({ state: 'scheduled' }, figures.pending - figures.due);
    },
  });
  new Gauge({
    name: 'certdesk_webhook_endpoints_disabled',
    help: 'Webhook endpoints disabled (after a 410 or three days of failures, or by their administrators).',
    registers: [registry],
    aggregator: 'max',
    async collect() {
      const figures = await webhookFigures();
      this.reset();
      if (figures) this.set(figures.endpointsDisabled);
    },
  });

  let readDocumentDrift: (() => Promise<{ sampled: number; drifted: number }>) | null = null;
  new Gauge({
    name: 'certdesk_order_documents_drifted',
    help: 'Of a random sample of stored order documents read at this scrape, how many differ from what the renderer makes of their order (should be 0; repair: certdesk orders rerender --all), and how many were sampled.',
    labelNames: ['figure'] as const,
    registers: [registry],
    aggregator: 'max', // every process samples the same table
    async collect() {
      if (!readDocumentDrift) return;
      let sample: { sampled: number; drifted: number };
      try {
        sample = await readDocumentDrift();
      } catch {
        this.reset(); // database down: certdesk_db_up says so
        return;
      }
      this.set({ figure: 'drifted' }, sample.drifted);
      this.set({ figure: 'sampled' }, sample.sampled);
    },
  });

  let database: DatabaseHandle | null = null;
  new Gauge({
    name: 'certdesk_db_pool_connections',
    help: 'Connections of each PostgreSQL pool (main; hot_reads: the listing\'s reads): total, idle, and callers waiting for one.',
    labelNames: ['pool', 'state'] as const,
    registers: [registry],
    collect() {
      const usage = database?.poolUsage();
      if (!usage) return;
      for (const [pool, u] of Object.entries(usage)) {
        this.set({ pool, state: 'total' }, u.total);
        this.set({ pool, state: 'idle' }, u.idle);
        this.set({ pool, state: 'waiting' }, u.waiting);
      }
    },
  });
  new Gauge({
    name: 'certdesk_db_up',
    help: '1 while the database is reachable, 0 during an outage.',
    registers: [registry],
    // Across `serve --workers N`: down as soon as one worker finds it down.
    aggregator: 'min',
    collect() {
      if (database) this.set(database.availability.isUp ? 1 : 0);
    },
  });
  // The handle keeps running totals; the counter takes the difference at each scrape.
  const reported = { unavailable: 0, query: 0 };
  new Counter({
    name: 'certdesk_db_errors_total',
    help: 'Database errors: `unavailable` (connection-level: refused, reset, server shutting down) and `query` (any other).',
    labelNames: ['kind'] as const,
    registers: [registry],
    collect() {
      if (!database) return;
      for (const kind of ['unavailable', 'query'] as const) {
        const total = database.availability.counts[kind];
        this.inc({ kind }, total - reported[kind]);
        reported[kind] = total;
      }
    },
  });

  return {
    registry,
    recordRequest(labels, seconds) {
      const l = { method: labels.method, route: labels.route, status: String(labels.status) };
      requests.inc(l);
      latency.observe(l, seconds);
    },
    recordTokenIssued: () => tokensIssued.inc(),
    recordTokenRefused: (error) => tokensRefused.inc({ error }),
    recordRateLimitRefusal: (limiter) => rateLimited.inc({ limiter }),
    observeDatabase(handle) {
      database = handle;
    },
    recordJobAttempt(kind, outcome, seconds) {
      jobAttempts.inc({ kind, outcome });
      jobsRun.inc({ kind, outcome, instance });
      jobDuration.observe({ kind, outcome }, seconds);
    },
    observeJobQueue(read) {
      readJobQueue = read;
    },
    recordWebhookDelivery(outcome, seconds) {
      webhookDeliveries.inc({ outcome });
      webhookLatency.observe({ outcome }, seconds);
    },
    recordWebhookDropped: (reason) => webhookDropped.inc({ reason }),
    observeWebhooks(read) {
      readWebhooks = read;
    },
    observeDocumentDrift(read) {
      readDocumentDrift = read;
    },
    async render() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}
