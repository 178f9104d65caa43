/**
 * The `deliver_webhook` job: sends one delivery (an event to an endpoint) and records the outcome
 * (DECISIONS 10, docs/webhooks.md):
 * - a 2xx is success; anything else (3xx included: redirects are not followed, a timeout, a refused
 *   address, a network error) a failure, tried again after an exponential backoff with full jitter for as
 *   long as the delivery is younger than the retry window (3 days), then failed for good and the endpoint
 *   disabled with the reason;
 * - a 410 fails the delivery and disables the endpoint at once;
 * - per-endpoint concurrency: one process sends at most PER_ENDPOINT_CONCURRENCY requests to one endpoint
 *   at a time; a delivery over that bound is put back a moment later, so a slow endpoint holds a few
 *   worker slots at most and never the others' (and each request has the sender's deadline).
 * The delivery keeps its own schedule (a new job per attempt, queued in the statement that records the
 * attempt); the job's own attempts only cover a worker that died mid-send (the lease runs out, another
 * worker sends again: at least once, with the same `webhook-id`).
 */
import type { BatchJobHandler, JobHandler } from '../background/job-handler.js';
import type { Db } from '../../storage/database.js';
import { abandonDelivery, deferDelivery, disableEndpoint, loadDeliveries, loadDelivery, recordAttempt, recordAttempts, type AttemptRecord, type PendingDelivery } from './webhook.repository.js';
import { openWebhookSecret } from './webhook-secret.js';

export interface WebhookTransportRequest {
  url: string;
  messageId: string;
  body: string;
  secrets: readonly string[];
}

export interface WebhookTransportResponse {
  status: number | null;
  latencyMs: number;
  excerpt: string;
}

/** Sends a signed request (src/integrations/webhook-sender implements it). */
export interface WebhookTransport {
  send(request: WebhookTransportRequest): Promise<WebhookTransportResponse>;
}

export interface DeliverySchedule {
  /** Ceiling of the first wait (doubles per attempt). */
  baseMs: number;
  /** Largest ceiling of any wait. */
  capMs: number;
  /** How long after the event a delivery is still tried (then it fails and its endpoint is disabled). */
  windowMs: number;
}

export const DEFAULT_DELIVERY_SCHEDULE: DeliverySchedule = { baseMs: 5_000, capMs: 6 * 3_600_000, windowMs: 3 * 24 * 3_600_000 };
export const PER_ENDPOINT_CONCURRENCY = 4;
/** How long a delivery over the per-endpoint bound waits before it is tried again (plus jitter). */
const DEFER_MS = 200;
/** Opened endpoint secrets kept per process (a few per endpoint that delivers). */
const OPENED_SECRETS_MAX = 10_000;

export interface DeliveryDeps {
  db: Db;
  transport: WebhookTransport;
  masterKey: string | null;
  schedule?: DeliverySchedule;
  random?: () => number;
  observer?: DeliveryObserver;
}

export const GONE_REASON = 'The endpoint answered 410 Gone.';
export const expiredReason = (windowMs: number): string => `Deliveries failed for ${Math.round(windowMs / 3_600_000)} hours.`;

/** How a delivery attempt ended, for the metrics: a 2xx, anything else, or a failure that disabled its endpoint. */
export type DeliveryOutcome = 'success' | 'failure' | 'disabled';

/** Sees every delivery attempt (the webhook metrics of /metrics). */
export interface DeliveryObserver {
  attempted(outcome: DeliveryOutcome, latencySeconds: number): void;
  /** A pending delivery that was dropped without a request: its endpoint was deleted or disabled. */
  dropped?(reason: 'endpoint_deleted' | 'endpoint_disabled'): void;
}

/**
 * Sends deliveries and records their outcomes. One instance per process (the per-endpoint bound is this
 * process's): `deliverWebhookJob` runs one delivery per job (the Worker), `deliverWebhookBatch` many
 * (the BatchWorker: one read for a claimed batch, outcomes of 2xx and retries written in batches).
 */
class Deliverer {
  private readonly schedule: DeliverySchedule;
  private readonly random: () => number;
  private readonly inFlight = new Map<string, number>();
  /** Deliveries waiting in this process for a slot of their endpoint. */
  private readonly waiting = new Map<string, Array<() => void>>();
  private readonly outcomes: Array<{ deliveryId: string; attempt: AttemptRecord; done: () => void; failed: (err: unknown) => void }> = [];
  private writing: Promise<void> | null = null;
  /**
   * Opened secrets by stored envelope and endpoint: opening one derives a key and decrypts (about 50 µs),
   * which every delivery would otherwise pay. A rotation stores a new envelope, so an entry never goes
   * stale; the map is emptied when it reaches OPENED_SECRETS_MAX.
   */
  private readonly opened = new Map<string, string>();

  constructor(private readonly deps: DeliveryDeps) {
    this.schedule = deps.schedule ?? DEFAULT_DELIVERY_SCHEDULE;
    this.random = deps.random ?? Math.random;
  }

  /** Takes a slot of the endpoint now, or (when `wait` allows and few already wait) once one frees; false: over the bound. */
  private async acquire(endpointId: string, wait: boolean): Promise<boolean> {
    const busy = this.inFlight.get(endpointId) ?? 0;
    if (busy < PER_ENDPOINT_CONCURRENCY) {
      this.inFlight.set(endpointId, busy + 1);
      return true;
    }
    const queue = this.waiting.get(endpointId) ?? [];
    // A slow endpoint holds at most this many more of the process's job slots; the rest are deferred.
    if (!wait || queue.length >= PER_ENDPOINT_WAITING) return false;
    await new Promise<void>((resolve) => {
      queue.push(resolve);
      this.waiting.set(endpointId, queue);
    });
    return true; // the releasing delivery handed its slot over
  }

  private release(endpointId: string): void {
    const next = this.waiting.get(endpointId)?.shift();
    if (next) {
      if (this.waiting.get(endpointId)!.length === 0) this.waiting.delete(endpointId);
      next();
      return;
    }
    const left = (this.inFlight.get(endpointId) ?? 1) - 1;
    if (left <= 0) this.inFlight.delete(endpointId);
    else this.inFlight.set(endpointId, left);
  }

  /** Sends one loaded delivery and records the outcome. `batched`: a 2xx or a retry is written with others. */
  async deliver(deliveryId: string, delivery: PendingDelivery | undefined, batched: boolean): Promise<void> {
    const { db } = this.deps;
    // Deleted with its endpoint (the cascade took the delivery): nothing to send.
    if (!delivery) {
      this.deps.observer?.dropped?.('endpoint_deleted');
      return;
    }
    // Already settled (a retry that was queued twice): nothing to send.
    if (delivery.status !== 'pending') return;
    if (delivery.endpoint_status !== 'enabled') {
      await abandonDelivery(db, deliveryId, 'The endpoint is disabled.');
      this.deps.observer?.dropped?.('endpoint_disabled');
      return;
    }
    if (!(await this.acquire(delivery.endpoint_id, batched))) {
      await deferDelivery(db, deliveryId, DEFER_MS + Math.floor(this.random() * DEFER_MS));
      return;
    }
    let response: WebhookTransportResponse;
    try {
      const secrets = [delivery.secret, ...(delivery.previous_secret ? [delivery.previous_secret] : [])].map((s) => this.open(s, delivery.endpoint_id));
      response = await this.deps.transport.send({ url: delivery.url, messageId: delivery.event_id, body: JSON.stringify(delivery.payload), secrets });
    } finally {
      this.release(delivery.endpoint_id);
    }
    const base = { responseStatus: response.status, latencyMs: response.latencyMs, excerpt: response.excerpt };
    const seconds = response.latencyMs / 1000;
    if (response.status !== null && response.status >= 200 && response.status < 300) {
      await this.record(deliveryId, { ...base, status: 'succeeded', retryInMs: null }, batched);
      this.deps.observer?.attempted('success', seconds);
      return;
    }
    const gone = response.status === 410;
    if (gone || delivery.expired) {
      await db.transaction().execute(async (trx) => {
        await recordAttempt(trx, deliveryId, { ...base, status: 'failed', retryInMs: null });
        await disableEndpoint(trx, delivery.endpoint_id, gone ? GONE_REASON : expiredReason(this.schedule.windowMs));
      });
      this.deps.observer?.attempted('disabled', seconds);
      return;
    }
    const attempts = delivery.attempts + 1;
    const ceiling = Math.min(this.schedule.capMs, this.schedule.baseMs * 2 ** Math.min(attempts - 1, 40));
    await this.record(deliveryId, { ...base, status: 'pending', retryInMs: Math.floor(this.random() * ceiling) }, batched);
    this.deps.observer?.attempted('failure', seconds);
  }

  private open(stored: string, endpointId: string): string {
    const key = `${endpointId} ${stored}`;
    let secret = this.opened.get(key);
    if (secret === undefined) {
      secret = openWebhookSecret(stored, this.deps.masterKey, endpointId);
      if (this.opened.size >= OPENED_SECRETS_MAX) this.opened.clear();
      this.opened.set(key, secret);
    }
    return secret;
  }

  /** Writes an outcome now, or with the others that came while the previous write ran (one statement). */
  private record(deliveryId: string, attempt: AttemptRecord, batched: boolean): Promise<void> {
    if (!batched) return recordAttempt(this.deps.db, deliveryId, attempt);
    const written = new Promise<void>((done, failed) => this.outcomes.push({ deliveryId, attempt, done, failed }));
    if (!this.writing) {
      this.writing = (async () => {
        while (this.outcomes.length > 0) {
          const batch = this.outcomes.splice(0, 500);
          try {
            await recordAttempts(this.deps.db, batch.map((o) => ({ deliveryId: o.deliveryId, ...o.attempt })));
            for (const o of batch) o.done();
          } catch (err) {
            for (const o of batch) o.failed(err);
          }
        }
      })().finally(() => {
        this.writing = null;
      });
    }
    return written;
  }

  handler(): JobHandler {
    return {
      run: async (payload) => {
        const deliveryId = String(payload.delivery_id ?? '');
        await this.deliver(deliveryId, await loadDelivery(this.deps.db, deliveryId, this.schedule.windowMs), false);
      },
    };
  }

  batchHandler(): BatchJobHandler {
    return {
      prepare: async (jobs) => {
        const ids = jobs.map((job) => String(job.payload.delivery_id ?? ''));
        const loaded = await loadDeliveries(this.deps.db, ids, this.schedule.windowMs);
        return ids.map((id) => () => this.deliver(id, loaded.get(id), true));
      },
    };
  }
}

/** Deliveries over the per-endpoint bound that wait in the process for a slot (beyond: deferred). */
export const PER_ENDPOINT_WAITING = 4 * PER_ENDPOINT_CONCURRENCY;

export interface WebhookJobHandlers {
  /** One delivery per job (the Worker, and tests driving it). */
  single: JobHandler;
  /** Many deliveries per claim (the BatchWorker of `serve` and `certdesk worker`). */
  batch: BatchJobHandler;
}

/** Both handlers of the `deliver_webhook` kind, sharing one per-endpoint bound. */
export function webhookJobHandlers(deps: DeliveryDeps): WebhookJobHandlers {
  const deliverer = new Deliverer(deps);
  return { single: deliverer.handler(), batch: deliverer.batchHandler() };
}

export function deliverWebhookJob(deps: DeliveryDeps): JobHandler {
  return new Deliverer(deps).handler();
}
