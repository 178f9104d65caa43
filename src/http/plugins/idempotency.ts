/**
 * `Idempotency-Key` on write routes (scoped to the API client, or to the user for a web session; kept 24 h
 * in the database so every instance sees it):
 * - first request with a key: runs, and its response (status, body, Location) is stored if it is final;
 * - same key, same body: the stored response is replayed with `Idempotent-Replayed: true`;
 * - same key, another body: 422 on `["header", "Idempotency-Key"]`;
 * - same key while the first request still runs: 409.
 *
 * Only final outcomes are stored: a 2xx, or a 4xx that a retry of the same request cannot change. A 5xx,
 * 408, 409, 425, 429, and a response the route marks retryable (`markRetryable`: a 422 because an upload's
 * bytes have not arrived yet) release the key instead, so a retry runs again.
 *
 * Routes that create something complete the key themselves, inside the transaction that creates it
 * (`completeIdempotencyIn`): the order and its key commit together or not at all. The `onSend` hook then
 * leaves the key alone.
 *
 * Use: `...idempotencyHooks(db, clock)` in a route's options, and `IdempotencyHeader` in its headers schema.
 */
import { createHash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest, onSendHookHandler, preHandlerHookHandler } from 'fastify';
import { ApiError } from '../../domain/errors.js';
import {
  acquireIdempotencyKey,
  completeIdempotencyKey,
  findIdempotencyRecord,
  releaseIdempotencyKey,
} from '../../domain/intake/idempotency.repository.js';
import type { Clock } from '../../domain/time/clock.js';
import type { Db, Executor } from '../../storage/database.js';
import { RequestValidationError } from '../validation/index.js';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
const TTL_MS = 24 * 3_600_000;
/** A request still `running` after this long died with its instance; a retry may take the key over. */
const LOCK_MS = 5 * 60_000;
const REPLAYED_HEADERS = ['location', 'content-type', 'content-language'];

/** The header's schema (validated pydantic-style and documented with the route). */
export const IdempotencyHeaderSchema = Type.Optional(
  Type.String({ minLength: 1, maxLength: 255, description: 'Makes a retry safe: the same key and body within 24 h replay the first response.' }),
);

declare module 'fastify' {
  interface FastifyRequest {
    idempotency?: IdempotencyClaim;
    /**
     * Multipart bodies: the fingerprint of the file's content, computed on demand (the request's other
     * parts and the file name are in the body already). Set by multipart-order-body.ts.
     */
    multipartContentFingerprint?: () => Promise<string | undefined>;
  }
}

/** The key a running request owns. */
export interface IdempotencyClaim {
  scope: string;
  key: string;
  /** The hash claimed with (fields and file name for multipart). */
  hash: string;
  /** Set once the response is stored (by the route, in its transaction): onSend leaves the key alone. */
  completed?: boolean;
  /** Set when the outcome is one a retry can change: the key is released however the response looks. */
  retryable?: boolean;
}

/** Statuses a retry of the same request can change: never stored. */
const RETRYABLE_STATUSES = new Set([408, 409, 423, 425, 429]);

/** Whether a response of this status is a final outcome, to be stored and replayed. */
export function isFinalStatus(status: number): boolean {
  return status < 500 && !RETRYABLE_STATUSES.has(status);
}

/** Marks this request's outcome as one a retry can change (the key is released, not stored). */
export function markRetryable(request: FastifyRequest): void {
  if (request.idempotency) request.idempotency.retryable = true;
}

/** The hash of a multipart request once its file's content is known. */
export function multipartRequestHash(claimedHash: string, contentSha256: string): string {
  return createHash('sha256').update(`${claimedHash}\n${contentSha256}`).digest('hex');
}

/**
 * Stores the response of this request under its key with the executor of the caller's transaction (a
 * creation commits with its key). `payload` is the exact body sent; `requestHash` replaces the claimed hash
 * (multipart: once the file's content is hashed). No-op without a key.
 */
export async function completeIdempotencyIn(
  trx: Executor,
  request: FastifyRequest,
  reply: FastifyReply,
  payload: string,
  requestHash?: string,
): Promise<void> {
  const claim = request.idempotency;
  if (!claim) return;
  await storeResponse(trx, claim, reply, payload, requestHash);
}

async function storeResponse(trx: Executor, claim: IdempotencyClaim, reply: FastifyReply, payload: string, requestHash?: string): Promise<void> {
  const headers: Record<string, string> = {};
  for (const name of REPLAYED_HEADERS) {
    const value = reply.getHeader(name);
    if (typeof value === 'string') headers[name] = value;
  }
  await completeIdempotencyKey(trx, claim.scope, claim.key, { status: reply.statusCode, headers, body: payload }, requestHash);
  claim.completed = true;
}

/** JSON with sorted keys: the same body always hashes the same, whatever the key order. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value as object).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

function requestHash(request: FastifyRequest, bodyFingerprint: string): string {
  return createHash('sha256').update(`${request.method} ${request.url.split('?')[0]}\n${bodyFingerprint}`).digest('hex');
}

function scopeOf(request: FastifyRequest): string {
  const p = request.principal;
  return p.clientId ? `client:${p.clientId}` : `user:${p.userId}`;
}

/**
 * Takes the key for this request, or answers from the stored record. Returns true when the request must
 * run (it owns the key, or carries none). A stored multipart request is compared with its content too:
 * its file is read (hashed, never stored) only when a finished record exists.
 */
export async function claimIdempotency(db: Db, clock: Clock, request: FastifyRequest, reply: FastifyReply, bodyFingerprint: string): Promise<boolean> {
  const key = request.headers[IDEMPOTENCY_HEADER.toLowerCase()];
  if (typeof key !== 'string') return true;
  const scope = scopeOf(request);
  const hash = requestHash(request, bodyFingerprint);
  for (let attempt = 0; attempt < 2; attempt++) {
    if (await acquireIdempotencyKey(db, scope, key, hash, clock.now(), LOCK_MS, TTL_MS)) {
      request.idempotency = { scope, key, hash };
      return true;
    }
    const record = await findIdempotencyRecord(db, scope, key);
    if (!record) continue; // expired and deleted between the two statements: try once more
    // A running record holds the claimed hash; a finished multipart one the hash with the file's content.
    const content = record.state === 'done' && request.multipartContentFingerprint ? await request.multipartContentFingerprint() : undefined;
    const expected = content === undefined ? hash : multipartRequestHash(hash, content);
    if (record.request_hash !== expected) {
      throw new RequestValidationError([{ type: 'value_error', loc: ['header', IDEMPOTENCY_HEADER], input: key, messageKey: 'validation.idempotency_key_reused' }]);
    }
    if (record.state === 'running') throw new ApiError(409, 'errors.idempotency_in_progress');
    for (const [name, value] of Object.entries(record.response_headers ?? {})) reply.header(name, value);
    reply.header('Idempotent-Replayed', 'true').code(record.response_status ?? 200).send(record.response_body ?? '');
    return false;
  }
  throw new ApiError(409, 'errors.idempotency_in_progress');
}

/**
 * Route hooks for write routes: claim before the handler; as the response is sent, store it when it is
 * final and the route did not store it already, else release the key.
 */
export function idempotencyHooks(db: Db, clock: Clock): { preHandler: preHandlerHookHandler; onSend: onSendHookHandler } {
  return {
    preHandler: async (request, reply) => {
      await claimIdempotency(db, clock, request, reply, canonicalJson(request.body));
    },
    onSend: async (request, reply, payload) => {
      const claim = request.idempotency;
      if (!claim) return payload;
      request.idempotency = undefined;
      if (claim.completed) return payload;
      // A multipart request is stored with its file's content in the hash: a refused one's file is read
      // now (and discarded); one whose file was taken but not stored whole cannot be, so it is released.
      const content = request.multipartContentFingerprint ? await request.multipartContentFingerprint().catch(() => undefined) : null;
      if (claim.retryable || !isFinalStatus(reply.statusCode) || typeof payload !== 'string' || content === undefined) {
        await releaseIdempotencyKey(db, claim.scope, claim.key);
        return payload;
      }
      await storeResponse(db, claim, reply, payload, content === null ? undefined : multipartRequestHash(claim.hash, content));
      return payload;
    },
  };
}
