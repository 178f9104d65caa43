/**
 * `Idempotency-Key` on write routes (scoped to the API client, or to the user for a web session; kept 24 h
 * in the database so every instance sees it):
 * - first request with a key: runs, and its response (status, body, Location) is stored;
 * - same key, same body: the stored response is replayed with `Idempotent-Replayed: true`;
 * - same key, another body: 422 on `["header", "Idempotency-Key"]`;
 * - same key while the first request still runs: 409.
 * A response of 500 or more is not stored (the key is released, so a retry runs again).
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
import type { Db } from '../../storage/database.js';
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
    idempotency?: { scope: string; key: string };
  }
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
 * run (it owns the key, or carries none). Also used by handlers whose body is known only after streaming
 * it (multipart), with a fingerprint of what they read.
 */
export async function claimIdempotency(db: Db, clock: Clock, request: FastifyRequest, reply: FastifyReply, bodyFingerprint: string): Promise<boolean> {
  const key = request.headers[IDEMPOTENCY_HEADER.toLowerCase()];
  if (typeof key !== 'string') return true;
  const scope = scopeOf(request);
  const hash = requestHash(request, bodyFingerprint);
  for (let attempt = 0; attempt < 2; attempt++) {
    if (await acquireIdempotencyKey(db, scope, key, hash, clock.now(), LOCK_MS, TTL_MS)) {
      request.idempotency = { scope, key };
      return true;
    }
    const record = await findIdempotencyRecord(db, scope, key);
    if (!record) continue; // expired and deleted between the two statements: try once more
    if (record.request_hash !== hash) {
      throw new RequestValidationError([{ type: 'value_error', loc: ['header', IDEMPOTENCY_HEADER], input: key, messageKey: 'validation.idempotency_key_reused' }]);
    }
    if (record.state === 'running') throw new ApiError(409, 'errors.idempotency_in_progress');
    for (const [name, value] of Object.entries(record.response_headers ?? {})) reply.header(name, value);
    reply.header('Idempotent-Replayed', 'true').code(record.response_status ?? 200).send(record.response_body ?? '');
    return false;
  }
  throw new ApiError(409, 'errors.idempotency_in_progress');
}

/** Route hooks for JSON write routes: claim before the handler, store the response as it is sent. */
export function idempotencyHooks(db: Db, clock: Clock): { preHandler: preHandlerHookHandler; onSend: onSendHookHandler } {
  return {
    preHandler: async (request, reply) => {
      // A multipart file counts by its bytes (its upload id is new on every attempt).
      const body = request.multipartFileSha256 ? { ...(request.body as object), file: request.multipartFileSha256 } : request.body;
      await claimIdempotency(db, clock, request, reply, canonicalJson(body));
    },
    onSend: async (request, reply, payload) => {
      const claim = request.idempotency;
      if (!claim) return payload;
      request.idempotency = undefined;
      if (reply.statusCode >= 500 || typeof payload !== 'string') {
        await releaseIdempotencyKey(db, claim.scope, claim.key);
        return payload;
      }
      const headers: Record<string, string> = {};
      for (const name of REPLAYED_HEADERS) {
        const value = reply.getHeader(name);
        if (typeof value === 'string') headers[name] = value;
      }
      await completeIdempotencyKey(db, claim.scope, claim.key, { status: reply.statusCode, headers, body: payload });
      return payload;
    },
  };
}
