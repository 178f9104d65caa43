/**
 * Certificates (DECISIONS 9): issued when an order becomes `Human Certified`, inside the transaction of
 * that move (the caller's: the reviewer's decision); revoked with a reason, finally; read by the order's
 * viewers (`GET /v1/orders/{id}/certificate`) and by anyone who has the id (`GET /v1/certificates/{id}`,
 * `/verify/{id}`, the badge).
 *
 * @example
 * // the decision flow, in one transaction:
 * await ensureAssetSha256(db, storage, orderId);            // before: may stream a large object
 * await db.transaction().execute(async (trx) => {
 *   await changeOrderIn(trx, clock, orderId, actor, { to: 'Human Certified', onlyFrom: ['In Progress'] });
 *   await issueCertificate(trx, certificates, { orderId, actor });
 * });
 */
import { randomUUID } from 'node:crypto';
import type { Db, Executor } from '../../storage/database.js';
import { ApiError, NotFoundError } from '../errors.js';
import { lockOrder } from '../orders/order-lifecycle.repository.js';
import type { Actor } from '../orders/order-lifecycle.service.js';
import type { Principal } from '../principal.js';
import type { Clock } from '../time/clock.js';
import { isOrderVisible } from '../orders/find-visible-order.js';
import { recordOrderEvent } from '../history/order-history.service.js';
import {
  findCertificate,
  findCertificateOfOrder,
  findVisibleCertificateFile,
  type CertificateFileRow,
  findCertificates,
  insertCertificate,
  lockCertificate,
  markRevoked,
  readOrderCertificationFacts,
  type CertificateRow,
} from './certificate.repository.js';
import { signCertificate, type CertificateSigningKey } from './certificate-jws.js';
import { queueContentCredentials } from './content-credentials-job.js';
import { logCertificateIssued, logCertificateRevoked } from '../transparency-log/certificate-log.js';

/** What issuing needs from the process: time, the current signing key, the URLs that go into claims. */
export interface CertificateDeps {
  clock: Clock;
  /** The key store's current signing key (read at the moment of signing: a rotation applies at once). */
  signingKey: () => CertificateSigningKey;
  issuerUrl: string;
  publicBaseUrl: string;
}

/** Longest revocation reason kept (characters). */
export const MAX_REVOCATION_REASON = 2000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True for a string that can be a certificate id (anything else is simply unknown: 404). */
export function isCertificateId(value: string): boolean {
  return UUID.test(value);
}

export class CertificateNotFoundError extends NotFoundError {
  override name = 'CertificateNotFoundError';
  constructor() {
    super('errors.certificate_not_found');
  }
}

/** 409: certificates are issued only on `Human Certified` orders, once. */
export class CertificateNotIssuableError extends ApiError {
  override name = 'CertificateNotIssuableError';
  constructor(reason: 'not_certified' | 'exists' | 'asset_unavailable', vars: Record<string, string> = {}) {
    super(409, `errors.certificate_${reason}`, { vars });
  }
}

/** 409: revocation is final; a second one changes nothing. */
export class CertificateAlreadyRevokedError extends ApiError {
  override name = 'CertificateAlreadyRevokedError';
  constructor() {
    super(409, 'errors.certificate_already_revoked');
  }
}

/** 422: a revocation needs a reason (1..2000 characters once trimmed). */
export class InvalidRevocationReasonError extends ApiError {
  override name = 'InvalidRevocationReasonError';
  constructor() {
    super(422, 'errors.revocation_reason_invalid', { vars: { max: MAX_REVOCATION_REASON } });
  }
}

function actorLabel(actor: Actor): string {
  return actor.kind === 'user' ? actor.email : `system:${actor.component}`;
}

export interface IssueCertificateInput {
  orderId: string;
  /** Who certifies (the reviewer); recorded as `issued_by`, not signed into the certificate. */
  actor: Actor;
}

/**
 * Issues the certificate of an order that is `Human Certified`, inside the caller's transaction, and
 * records `certificate_issued` in the order's history there too (the
 * order's row is locked until it ends, so two issuances of one order queue up and the second is 409).
 * The asset's SHA-256 must have been recorded before the transaction (`ensureAssetSha256`).
 * @throws CertificateNotIssuableError (409), OrderNotFoundError
 */
export async function issueCertificate(trx: Executor, deps: CertificateDeps, input: IssueCertificateInput): Promise<CertificateRow> {
  const order = await lockOrder(trx, input.orderId);
  if (!order) throw new NotFoundError('errors.order_not_found');
  if (order.order_state !== 'Human Certified') throw new CertificateNotIssuableError('not_certified', { state: order.order_state });
  if (await findCertificateOfOrder(trx, order.order_id)) throw new CertificateNotIssuableError('exists');
  const facts = await readOrderCertificationFacts(trx, order.order_id);
  if (!facts?.asset_sha256) throw new CertificateNotIssuableError('asset_unavailable');
  const doc = JSON.parse(order.doc) as { asset_name: string };
  const certificateId = randomUUID();
  const issuedAt = deps.clock.now();
  const key = deps.signingKey();
  const claims = {
    iss: deps.issuerUrl,
    jti: certificateId,
    iat: Math.floor(issuedAt.getTime() / 1000),
    sub: order.order_id,
    org_id: order.organization_id,
    org_name: facts.organization_name,
    asset_name: doc.asset_name,
    asset_sha256: facts.asset_sha256,
    asset_media_type: order.asset_content_type ?? 'application/octet-stream',
    verify_url: `${deps.publicBaseUrl.replace(/\/+$/, '')}/verify/${certificateId}`,
  };
  const row: CertificateRow = {
    certificate_id: certificateId,
    order_id: order.order_id,
    organization_id: order.organization_id,
    kid: key.kid,
    jws: await signCertificate(key, claims),
    asset_name: claims.asset_name,
    asset_sha256: claims.asset_sha256,
    asset_media_type: claims.asset_media_type,
    verify_url: claims.verify_url,
    issued_at: issuedAt,
    issued_by: actorLabel(input.actor),
    revoked_at: null,
    revocation_reason: null,
    revoked_by: null,
    content_credentials: 'pending',
    content_credentials_key: null,
    content_credentials_note: null,
    transparency_log: null,
  };
  const {
    revoked_at: _a,
    revocation_reason: _b,
    revoked_by: _c,
    transparency_log: _d,
    content_credentials: _e,
    content_credentials_key: _f,
    content_credentials_note: _g,
    ...values
  } = row;
  await insertCertificate(trx, values);
  // The log's entry joins the same transaction: a certificate never exists without it, nor it twice
  // (DECISIONS 14; the sequencer numbers it within seconds).
  await logCertificateIssued(trx, row);
  // The credentialed copy of the asset is made by a job queued in the same transaction (never lost).
  await queueContentCredentials(trx, certificateId);
  // The history event joins the same transaction: a certificate never exists without its `certificate_issued`.
  await recordOrderEvent(trx, deps.clock, order.order_id, input.actor, {
    type: 'certificate_issued',
    note: null,
    changes: { certificate_id: { before: null, after: certificateId } },
  });
  return row;
}

/**
 * Revokes a certificate with a reason, inside the caller's transaction, and records `certificate_revoked`
 * in the order's history (the reason as its note). Final: a second revocation is 409 and changes nothing.
 * The order keeps its state.
 * @throws CertificateNotFoundError (404), CertificateAlreadyRevokedError (409), InvalidRevocationReasonError (422)
 */
export async function revokeCertificate(trx: Executor, clock: Clock, certificateId: string, reason: string, actor: Actor): Promise<CertificateRow> {
  const trimmed = reason.trim();
  if (trimmed.length === 0 || [...trimmed].length > MAX_REVOCATION_REASON) throw new InvalidRevocationReasonError();
  if (!isCertificateId(certificateId)) throw new CertificateNotFoundError();
  const current = await lockCertificate(trx, certificateId);
  if (!current) throw new CertificateNotFoundError();
  if (current.revoked_at) throw new CertificateAlreadyRevokedError();
  const revoked = await markRevoked(trx, certificateId, { revoked_at: clock.now(), revocation_reason: trimmed, revoked_by: actorLabel(actor) });
  // The row lock makes this hold; the condition keeps the write honest should a caller forget the lock.
  if (!revoked) throw new CertificateAlreadyRevokedError();
  // The revocation's log entry, in the same transaction (after the issuance's, which committed before).
  await logCertificateRevoked(trx, revoked);
  // Recorded in the same transaction, the reason as the event's note (docs/history.md). The order's row
  // lock is taken after the certificate's: nothing locks an order and then waits for a certificate row.
  await recordOrderEvent(trx, clock, revoked.order_id, actor, {
    type: 'certificate_revoked',
    note: trimmed,
    changes: { certificate_status: { before: 'valid', after: 'revoked' } },
  });
  return revoked;
}

/** `revokeCertificate` in a transaction of its own (the operator command). */
export async function revokeCertificateNow(db: Db, clock: Clock, certificateId: string, reason: string, actor: Actor): Promise<CertificateRow> {
  return db.transaction().execute((trx) => revokeCertificate(trx, clock, certificateId, reason, actor));
}

/** A certificate by id for anyone who has it (public), or null when the id is unknown or malformed. */
export async function findPublicCertificate(db: Executor, certificateId: string): Promise<CertificateRow | null> {
  if (!isCertificateId(certificateId)) return null;
  return (await findCertificate(db, certificateId)) ?? null;
}

/**
 * The certificate of an order, read without a principal's visibility: for callers that checked their own
 * rights first (a reviewer's review page, where separation of duties is checked on the row's organization).
 */
export async function findCertificateByOrder(db: Executor, orderId: string): Promise<CertificateRow | null> {
  return (await findCertificateOfOrder(db, orderId)) ?? null;
}

/**
 * Public certificates by id, for anyone who has them, in one read; malformed ids are left out (unknown).
 * @returns the rows found, keyed by their (lower-case) id
 */
export async function findPublicCertificates(db: Executor, certificateIds: readonly string[]): Promise<Map<string, CertificateRow>> {
  const wanted = [...new Set(certificateIds.filter(isCertificateId).map((id) => id.toLowerCase()))];
  if (wanted.length === 0) return new Map();
  return new Map((await findCertificates(db, wanted)).map((row) => [row.certificate_id, row]));
}

/** The certificate of an order the caller sees, or null (no such order, not visible, or none issued yet). */
export async function findOrderCertificate(db: Executor, principal: Principal, orderId: string): Promise<CertificateRow | null> {
  if (!(await isOrderVisible(db, principal, orderId))) return null;
  return (await findCertificateOfOrder(db, orderId)) ?? null;
}

/**
 * The credentialed-file columns of the certificate of an order the caller sees, or null (as
 * findOrderCertificate, in one read: a download reads neither the JWS nor the log proof).
 */
export async function findOrderCertificateFile(db: Executor, principal: Principal, orderId: string): Promise<CertificateFileRow | null> {
  return (await findVisibleCertificateFile(db, principal, orderId)) ?? null;
}
