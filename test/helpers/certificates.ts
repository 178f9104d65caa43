/**
 * Certificates in tests, until the reviewer's decision flow exists: an order created through the real API
 * with real bytes, moved to `Human Certified` and certified in one transaction through the domain API,
 * exactly as the `Certify` decision will do it.
 *
 * @example
 * const orderId = await createOrderWithAsset(api.app, api.tokens.admin, pngBytes());
 * const certificate = await certifyOrder(api.app, orderId);
 */
import type { FastifyInstance } from 'fastify';
import { ensureAssetSha256, issueCertificate, type CertificateRow } from '../../src/domain/certificates/index.js';
import { changeOrderIn, type Actor } from '../../src/domain/orders/order-lifecycle.service.js';

export const TEST_REVIEWER: Actor = { kind: 'user', userId: '00000000-0000-4000-8000-0000000000ee', email: 'reviewer@certifier.test', clientId: null };

/** Creates an order with `bytes` as its asset (multipart POST /v1/orders; the token needs the write scope). */
export async function createOrderWithAsset(
  app: FastifyInstance,
  token: string,
  bytes: Buffer,
  file: { name?: string; type?: string; title?: string } = {},
): Promise<string> {
  const form = new FormData();
  form.append('order_title', file.title ?? 'Certified artwork');
  form.append('project_id', '');
  form.append('file', new Blob([new Uint8Array(bytes)], { type: file.type ?? 'image/png' }), file.name ?? 'artwork.png');
  const encoded = new Response(form);
  const res = await app.inject({
    method: 'POST',
    url: '/v1/orders',
    headers: { authorization: `Bearer ${token}`, 'content-type': encoded.headers.get('content-type')! },
    payload: Buffer.from(await encoded.arrayBuffer()),
  });
  if (res.statusCode !== 201) throw new Error(`order creation failed: ${res.statusCode} ${res.body}`);
  return (res.json() as { order_id: string }).order_id;
}

/** Moves an order to `Human Certified` and issues its certificate, in one transaction (the `Certify` decision's shape). */
export async function certifyOrder(app: FastifyInstance, orderId: string, actor: Actor = TEST_REVIEWER): Promise<CertificateRow> {
  const { database, storage, certificates, clock } = app.services;
  await ensureAssetSha256(database.db, storage, orderId);
  return database.db.transaction().execute(async (trx) => {
    await changeOrderIn(trx, clock, orderId, actor, { to: 'Human Certified', onlyFrom: ['In Progress'], reason: 'certified' });
    return issueCertificate(trx, certificates, { orderId, actor });
  });
}

/**
 * Reads until `done` holds, up to a generous deadline (real time, polled: no fixed sleep). Public
 * certificate answers are kept in memory and dropped when PostgreSQL's notification of a change arrives
 * (milliseconds, docs/certificates.md "Caching"), so a revocation shows on the public routes shortly after
 * its commit rather than on the very next request.
 */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, deadlineMs = 30_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() - started > deadlineMs) throw new Error(`${what}: not within ${deadlineMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * Runs the transparency log's sequencer until every waiting entry is sequenced and published (tests that
 * do not start its loop): certificate objects then carry `transparency_log`.
 */
export async function sequenceLog(app: FastifyInstance): Promise<number> {
  const { sequencer } = app.services.transparencyLog;
  let integrated = 0;
  for (;;) {
    const round = await sequencer.runRound();
    if (!round.leading) throw new Error('another process leads the transparency log');
    integrated += round.integrated;
    if (round.integrated === 0 && round.published === null) return integrated;
  }
}
