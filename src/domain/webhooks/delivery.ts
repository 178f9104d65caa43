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
import type { JobHandler } from '../background/job-handler.js';
import type { Db } from '../../storage/database.js';
import { abandonDelivery, deferDelivery, disableEndpoint, loadDelivery, recordAttempt } from './webhook.repository.js';
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

export interface DeliveryDeps {
  db: Db;
  transport: WebhookTransport;
  masterKey: string | null;
  schedule?: DeliverySchedule;
  random?: () => number;
}

export const GONE_REASON = 'The endpoint answered 410 Gone.';
export const expiredReason = (windowMs: number): string => `Deliveries failed for ${Math.round(windowMs / 3_600_000)} hours.`;

export function deliverWebhookJob(deps: DeliveryDeps): JobHandler {
  const schedule = deps.schedule ?? DEFAULT_DELIVERY_SCHEDULE;
  const random = deps.random ?? Math.random;
  const inFlight = new Map<string, number>();
  return {
    async run(payload) {
      const deliveryId = String(payload.delivery_id ?? '');
      const delivery = await loadDelivery(deps.db, deliveryId, schedule.windowMs);
      // Deleted with its endpoint, or already settled (a retry that was queued twice): nothing to send.
      if (!delivery || delivery.status !== 'pending') return;
      if (delivery.endpoint_status !== 'enabled') {
        await abandonDelivery(deps.db, deliveryId, 'The endpoint is disabled.');
        return;
      }
      const busy = inFlight.get(delivery.endpoint_id) ?? 0;
      if (busy >= PER_ENDPOINT_CONCURRENCY) {
        await deferDelivery(deps.db, deliveryId, DEFER_MS + Math.floor(random() * DEFER_MS));
        return;
      }
      inFlight.set(delivery.endpoint_id, busy + 1);
      let response: WebhookTransportResponse;
      try {
        const secrets = [delivery.secret, ...(delivery.previous_secret ? [delivery.previous_secret] : [])].map((s) => openWebhookSecret(s, deps.masterKey, delivery.endpoint_id));
        response = await deps.transport.send({ url: delivery.url, messageId: delivery.event_id, body: JSON.stringify(delivery.payload), secrets });
      } finally {
        const left = (inFlight.get(delivery.endpoint_id) ?? 1) - 1;
        if (left <= 0) inFlight.delete(delivery.endpoint_id);
        else inFlight.set(delivery.endpoint_id, left);
      }
      const base = { responseStatus: response.status, latencyMs: response.latencyMs, excerpt: response.excerpt };
      if (response.status !== null && response.status >= 200 && response.status < 300) {
        await recordAttempt(deps.db, deliveryId, { ...base, status: 'succeeded', retryInMs: null });
        return;
      }
      const gone = response.status === 410;
      if (gone || delivery.expired) {
        await deps.db.transaction().execute(async (trx) => {
          await recordAttempt(trx, deliveryId, { ...base, status: 'failed', retryInMs: null });
          await disableEndpoint(trx, delivery.endpoint_id, gone ? GONE_REASON : expiredReason(schedule.windowMs));
        });
        return;
      }
      const attempts = delivery.attempts + 1;
      const ceiling = Math.min(schedule.capMs, schedule.baseMs * 2 ** Math.min(attempts - 1, 40));
      await recordAttempt(deps.db, deliveryId, { ...base, status: 'pending', retryInMs: Math.floor(random() * ceiling) });
    },
  };
}
