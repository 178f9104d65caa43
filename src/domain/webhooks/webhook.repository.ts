/**
 * SQL of webhooks (migrations/0009_webhooks.sql): endpoints, their deliveries, and the delivery job's
 * reads and outcomes. Events and deliveries are created by the migration's triggers, in the transaction
 * of the change. Every time is the database's (`now()`).
 */
import { sql, type Selectable } from 'kysely';
import type { Executor } from '../../storage/database.js';
import type { WebhookEndpointsTable } from '../../storage/schema.js';
import { WEBHOOK_TEST_EVENT_TYPE } from '../../contract/webhook-schemas.js';
import { DELIVER_WEBHOOK_JOB } from '../background/job-kinds.js';

/** An endpoint as its table holds it (ids as text). */
export type EndpointRow = Selectable<WebhookEndpointsTable>;

const ENDPOINT_COLUMNS = sql.raw(
  'id::text AS id, organization_id::text AS organization_id, url, events, description, status, disabled_reason, secret, previous_secret, previous_secret_expires_at, created_at, updated_at',
);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Ids from a path: anything that is no UUID matches nothing (and never reaches a uuid cast). */
export const isUuid = (value: string): boolean => UUID.test(value);

export async function insertEndpoint(db: Executor, row: Pick<EndpointRow, 'id' | 'organization_id' | 'url' | 'events' | 'description' | 'secret'>): Promise<EndpointRow> {
  const result = await sql<EndpointRow>`
    INSERT INTO webhook_endpoints (id, organization_id, url, events, description, status, secret, created_at, updated_at)
    VALUES (${row.id}::uuid, ${row.organization_id}::uuid, ${row.url}, ${row.events}::text[], ${row.description}, 'enabled', ${row.secret}, now(), now())
    RETURNING ${ENDPOINT_COLUMNS}`.execute(db);
  return result.rows[0]!;
}

export async function listEndpoints(db: Executor, organizationId: string): Promise<EndpointRow[]> {
  const result = await sql<EndpointRow>`
    SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE organization_id = ${organizationId}::uuid ORDER BY created_at, id`.execute(db);
  return result.rows;
}

export async function findEndpoint(db: Executor, organizationId: string, id: string): Promise<EndpointRow | undefined> {
  if (!isUuid(id)) return undefined;
  const result = await sql<EndpointRow>`
    SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE organization_id = ${organizationId}::uuid AND id = ${id}::uuid`.execute(db);
  return result.rows[0];
}

export interface EndpointPatch {
  url?: string;
  events?: string[];
  description?: string | null;
  status?: 'enabled' | 'disabled';
}

/** Applies the given fields; a change of status clears the reason the service disabled it for. */
export async function updateEndpoint(db: Executor, organizationId: string, id: string, patch: EndpointPatch): Promise<EndpointRow | undefined> {
  if (!isUuid(id)) return undefined;
  const result = await sql<EndpointRow>`
    UPDATE webhook_endpoints SET
      url = COALESCE(${patch.url ?? null}::text, url),
      events = COALESCE(${patch.events ?? null}::text[], events),
      description = CASE WHEN ${patch.description !== undefined} THEN ${patch.description ?? null}::text ELSE description END,
      status = COALESCE(${patch.status ?? null}::text, status),
      disabled_reason = CASE WHEN ${patch.status ?? null}::text IS NULL THEN disabled_reason ELSE NULL END,
      updated_at = now()
    WHERE organization_id = ${organizationId}::uuid AND id = ${id}::uuid
    RETURNING ${ENDPOINT_COLUMNS}`.execute(db);
  return result.rows[0];
}

export async function deleteEndpoint(db: Executor, organizationId: string, id: string): Promise<boolean> {
  if (!isUuid(id)) return false;
  const result = await sql`DELETE FROM webhook_endpoints WHERE organization_id = ${organizationId}::uuid AND id = ${id}::uuid RETURNING id`.execute(db);
  return result.rows.length === 1;
}

/** The current secret becomes the previous one, which keeps signing for `overlapMs`. */
export async function rotateEndpointSecret(db: Executor, organizationId: string, id: string, sealedSecret: string, overlapMs: number): Promise<boolean> {
  if (!isUuid(id)) return false;
  const result = await sql`
    UPDATE webhook_endpoints SET previous_secret = secret, previous_secret_expires_at = now() + ${overlapMs}::bigint * interval '1 millisecond',
      secret = ${sealedSecret}, updated_at = now()
    WHERE organization_id = ${organizationId}::uuid AND id = ${id}::uuid RETURNING id`.execute(db);
  return result.rows.length === 1;
}

export interface DeliveryListRow {
  id: string;
  event_id: string;
  event_type: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  last_attempt_at: Date | null;
  next_attempt_at: Date | null;
  response_status: number | null;
  latency_ms: number | null;
  /** The sort key, in exact microseconds (the page cursor). */
  created_micros: string;
}

/** An endpoint's deliveries, newest first, after a cursor (the last row of the previous page). */
export async function listDeliveries(db: Executor, endpointId: string, limit: number, after: { createdMicros: string; id: string } | null): Promise<DeliveryListRow[]> {
  const createdMicros = sql`(extract(epoch FROM d.created_at) * 1000000)::bigint`;
  const cursor = after ? sql`AND (${createdMicros}, d.id) < (${after.createdMicros}::bigint, ${after.id}::uuid)` : sql``;
  const result = await sql<DeliveryListRow>`
    SELECT d.id::text AS id, d.event_id::text AS event_id, e.type AS event_type, d.status, d.attempts, d.last_attempt_at, d.next_attempt_at,
           d.response_status, d.latency_ms, ${createdMicros}::text AS created_micros
    FROM webhook_deliveries d JOIN webhook_events e ON e.event_id = d.event_id
    WHERE d.endpoint_id = ${endpointId}::uuid ${cursor}
    ORDER BY d.created_at DESC, d.id DESC
    LIMIT ${limit}`.execute(db);
  return result.rows;
}

/** Puts a delivery back in the queue, due now, with a job to send it. @returns false when it does not exist. */
export async function requeueDelivery(db: Executor, endpointId: string, deliveryId: string): Promise<boolean> {
  if (!isUuid(deliveryId)) return false;
  const result = await sql`
    WITH d AS (
      UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = now()
      WHERE id = ${deliveryId}::uuid AND endpoint_id = ${endpointId}::uuid RETURNING id)
    INSERT INTO jobs (kind, payload, run_at, max_attempts, created_at)
    SELECT ${DELIVER_WEBHOOK_JOB}::text, jsonb_build_object('delivery_id', d.id), now(), 5, now() FROM d
    RETURNING id`.execute(db);
  return result.rows.length === 1;
}

/** The type of a test event: never subscribed to, written for one endpoint on request (migrations/0015). */
export const TEST_EVENT_TYPE = WEBHOOK_TEST_EVENT_TYPE;

/**
 * Writes a test event for one endpoint, its delivery and the job that sends it, in one statement: the
 * same outbox, job, signature and log as the events the triggers write. @returns the delivery id, or
 * undefined when the endpoint does not exist.
 */
export async function insertTestDelivery(db: Executor, organizationId: string, endpointId: string): Promise<string | undefined> {
  if (!isUuid(endpointId)) return undefined;
  const result = await sql<{ id: string }>`
    WITH w AS (
      SELECT id FROM webhook_endpoints WHERE organization_id = ${organizationId}::uuid AND id = ${endpointId}::uuid),
    e AS (
      INSERT INTO webhook_events (event_id, organization_id, type, payload, created_at)
      SELECT gen_random_uuid(), ${organizationId}::uuid, ${TEST_EVENT_TYPE}::text,
             jsonb_build_object('type', ${TEST_EVENT_TYPE}::text, 'timestamp', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                                'data', jsonb_build_object('organization_id', ${organizationId}::text, 'endpoint_id', w.id::text)),
             now()
      FROM w
      RETURNING event_id),
    d AS (
      INSERT INTO webhook_deliveries (id, endpoint_id, event_id, next_attempt_at)
      SELECT gen_random_uuid(), w.id, e.event_id, now() FROM w, e
      RETURNING id),
    j AS (
      INSERT INTO jobs (kind, payload, run_at, max_attempts, created_at)
      SELECT ${DELIVER_WEBHOOK_JOB}::text, jsonb_build_object('delivery_id', d.id), now(), 5, now() FROM d
      RETURNING id)
    SELECT d.id::text AS id FROM d, j`.execute(db);
  return result.rows[0]?.id;
}

/** What the delivery job needs, in one read. */
export interface PendingDelivery {
  id: string;
  endpoint_id: string;
  status: 'pending' | 'succeeded' | 'failed';
  url: string;
  endpoint_status: 'enabled' | 'disabled';
  secret: string;
  /** Only while its overlap lasts. */
  previous_secret: string | null;
  event_id: string;
  payload: Record<string, unknown>;
  attempts: number;
  /** The delivery is older than the retry window: a failure now is final. */
  expired: boolean;
}

/** Deliveries as the job sends them, in one read, by (lower-case) id; one that no longer exists is absent. */
export async function loadDeliveries(db: Executor, deliveryIds: readonly string[], retryWindowMs: number): Promise<Map<string, PendingDelivery>> {
  const ids = deliveryIds.filter(isUuid);
  if (ids.length === 0) return new Map();
  const result = await sql<PendingDelivery>`
    SELECT d.id::text AS id, d.endpoint_id::text AS endpoint_id, d.status, d.attempts, w.url, w.status AS endpoint_status, w.secret,
           CASE WHEN w.previous_secret_expires_at > now() THEN w.previous_secret END AS previous_secret,
           e.event_id::text AS event_id, e.payload,
           d.created_at + ${retryWindowMs}::bigint * interval '1 millisecond' <= now() AS expired
    FROM webhook_deliveries d
    JOIN webhook_endpoints w ON w.id = d.endpoint_id
    JOIN webhook_events e ON e.event_id = d.event_id
    WHERE d.id = ANY(${`{${ids.join(',')}}`}::uuid[])`.execute(db);
  return new Map(result.rows.map((r) => [r.id, r]));
}

/** One delivery as the job sends it, or undefined when it no longer exists (or the id is malformed). */
export async function loadDelivery(db: Executor, deliveryId: string, retryWindowMs: number): Promise<PendingDelivery | undefined> {
  return (await loadDeliveries(db, [deliveryId], retryWindowMs)).get(deliveryId.toLowerCase());
}

export interface AttemptRecord {
  status: 'pending' | 'succeeded' | 'failed';
  responseStatus: number | null;
  latencyMs: number;
  excerpt: string | null;
  /** For a pending delivery: when it is tried again (ms from the database's now). */
  retryInMs: number | null;
}

/**
 * Records an attempt, and for a retry queues the job that makes it, in one statement. Only a pending
 * delivery is written (one a user re-queued meanwhile stays as the user left it).
 */
export async function recordAttempt(db: Executor, deliveryId: string, attempt: AttemptRecord): Promise<void> {
  const next = attempt.retryInMs === null ? sql`NULL::timestamptz` : sql`now() + ${Math.max(0, Math.round(attempt.retryInMs))}::bigint * interval '1 millisecond'`;
  await sql`
    WITH d AS (
      UPDATE webhook_deliveries SET status = ${attempt.status}, attempts = attempts + 1, last_attempt_at = now(),
        next_attempt_at = ${next}, response_status = ${attempt.responseStatus}::integer, latency_ms = ${Math.round(attempt.latencyMs)}::integer,
        response_excerpt = ${attempt.excerpt === null ? null : attempt.excerpt.slice(0, 1024)}::text
      WHERE id = ${deliveryId}::uuid AND status = 'pending'
      RETURNING id, next_attempt_at)
    INSERT INTO jobs (kind, payload, run_at, max_attempts, created_at)
    SELECT ${DELIVER_WEBHOOK_JOB}::text, jsonb_build_object('delivery_id', d.id), d.next_attempt_at, 5, now() FROM d
    WHERE ${attempt.status === 'pending'}`.execute(db);
}

/**
 * `recordAttempt` for many deliveries in one statement (the batched outcomes of 2xx and retries): the input
 * travels as one JSON array, which reads the same on PostgreSQL and PGlite.
 */
export async function recordAttempts(db: Executor, attempts: ReadonlyArray<AttemptRecord & { deliveryId: string }>): Promise<void> {
  if (attempts.length === 0) return;
  const input = JSON.stringify(
    attempts.map((a) => ({
      id: a.deliveryId,
      status: a.status,
      response_status: a.responseStatus,
      latency_ms: Math.round(a.latencyMs),
      excerpt: a.excerpt === null ? null : a.excerpt.slice(0, 1024),
      retry_ms: a.retryInMs === null ? null : Math.max(0, Math.round(a.retryInMs)),
    })),
  );
  await sql`
    WITH i AS (
      SELECT * FROM jsonb_to_recordset(${input}::jsonb) AS t(id uuid, status text, response_status integer, latency_ms integer, excerpt text, retry_ms bigint)),
    d AS (
      UPDATE webhook_deliveries w SET status = i.status, attempts = w.attempts + 1, last_attempt_at = now(),
        next_attempt_at = CASE WHEN i.retry_ms IS NULL THEN NULL ELSE now() + i.retry_ms * interval '1 millisecond' END,
        response_status = i.response_status, latency_ms = i.latency_ms, response_excerpt = i.excerpt
      FROM i WHERE w.id = i.id AND w.status = 'pending'
      RETURNING w.id, w.status, w.next_attempt_at)
    INSERT INTO jobs (kind, payload, run_at, max_attempts, created_at)
    SELECT ${DELIVER_WEBHOOK_JOB}::text, jsonb_build_object('delivery_id', d.id), d.next_attempt_at, 5, now() FROM d
    WHERE d.status = 'pending'`.execute(db);
}

/**
 * The outbox backlog and disabled endpoints, for /metrics: the pending deliveries are read through their
 * partial index (migrations/0012), so a scrape costs the backlog's size, not the history's.
 */
export async function countWebhookBacklog(db: Executor): Promise<{ pending: number; due: number; endpointsDisabled: number }> {
  const result = await sql<{ pending: string | number; due: string | number; disabled: string | number }>`
    SELECT (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending') AS pending,
           (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= now()) AS due,
           (SELECT count(*) FROM webhook_endpoints WHERE status = 'disabled') AS disabled`.execute(db);
  const row = result.rows[0]!;
  return { pending: Number(row.pending), due: Number(row.due), endpointsDisabled: Number(row.disabled) };
}

/** Disables an endpoint with the reason its administrators see. */
export async function disableEndpoint(db: Executor, endpointId: string, reason: string): Promise<void> {
  await sql`UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = ${reason}, updated_at = now() WHERE id = ${endpointId}::uuid AND status = 'enabled'`.execute(db);
}

/** A delivery that will not be tried (its endpoint is disabled). */
export async function abandonDelivery(db: Executor, deliveryId: string, reason: string): Promise<void> {
  await sql`UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, response_excerpt = ${reason.slice(0, 1024)} WHERE id = ${deliveryId}::uuid AND status = 'pending'`.execute(db);
}

/** Queues the delivery's job again in `delayMs` (its endpoint was busy in this process); the delivery is unchanged. */
export async function deferDelivery(db: Executor, deliveryId: string, delayMs: number): Promise<void> {
  await sql`
    INSERT INTO jobs (kind, payload, run_at, max_attempts, created_at)
    VALUES (${DELIVER_WEBHOOK_JOB}::text, jsonb_build_object('delivery_id', ${deliveryId}::text), now() + ${Math.round(delayMs)}::bigint * interval '1 millisecond', 5, now())`.execute(db);
}

/**
 * Forgets events older than `retentionMs` none of whose deliveries is still pending (their deliveries go
 * with them). @returns how many events.
 */
export async function deleteSettledWebhookEvents(db: Executor, retentionMs: number, limit = 5000): Promise<number> {
  const result = await sql`
    DELETE FROM webhook_events WHERE event_id IN (
      SELECT e.event_id FROM webhook_events e
      WHERE e.created_at < now() - ${retentionMs}::bigint * interval '1 millisecond'
        AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.event_id AND d.status = 'pending')
      LIMIT ${limit})
    RETURNING event_id`.execute(db);
  return result.rows.length;
}
