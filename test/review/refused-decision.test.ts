/**
 * A refused decision changes nothing (DECISIONS 9, docs/review.md "Decisions"): a reviewer certifying an
 * order of their own organization (403), with a claim another reviewer took since (409) or with a claim
 * they never held (409) gets the refusal and every table (the order's whole row, `asset_sha256`
 * included, its events, claims and certificates) stays exactly as it was. The control, an accepted
 * Certify, shows the same comparison does see the digest being recorded. PGlite always, PostgreSQL when
 * TEST_DATABASE_URL is set.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { CLAIM_TTL_MS } from '../../src/domain/review/index.js';
import { describeOnEachDatabase } from '../helpers/database.js';
import { rowOf, snapshotTables } from '../helpers/db-snapshot.js';
import { decide, openOrder, openReviewWorld, type ReviewWorld } from './review-world.js';

const NEVER_HELD = '0a0a0a0a-0000-4000-8000-00000000c1a1';

describeOnEachDatabase('a refused decision changes no column', (getDb) => {
  let w: ReviewWorld;

  before(async () => {
    w = await openReviewWorld(getDb(), 6);
  });
  after(async () => {
    await w?.close();
  });

  const orderRow = async (orderId: string) => JSON.parse((await rowOf(getDb().db, 'orders', 'order_id', orderId))!) as Record<string, unknown>;

  it('Certify by a reviewer of the order’s own organization: 403, nothing written (no digest either)', async () => {
    const before = await snapshotTables(getDb().db);
    assert.equal((await orderRow('q1')).asset_sha256, null, 'no digest recorded yet');
    const res = await decide(w, 'customerReviewer', 'q1', 'certify', 'looks human', NEVER_HELD);
    assert.equal(res.statusCode, 403, res.body.slice(0, 300));
    assert.deepEqual(await snapshotTables(getDb().db), before);
  });

  it('Certify with a claim another reviewer has taken since: 409, nothing written', async () => {
    const { claimId: stale } = await openOrder(w, 'rita', 'q2');
    assert.ok(stale, 'rita claimed q2');
    w.clock.advance(CLAIM_TTL_MS + 1_000);
    const { claimId: taken } = await openOrder(w, 'rex', 'q2');
    assert.ok(taken && taken !== stale, 'rex took q2 after the claim ran out');
    const before = await snapshotTables(getDb().db);
    const res = await decide(w, 'rita', 'q2', 'certify', 'looks human', stale);
    assert.equal(res.statusCode, 409, res.body.slice(0, 300));
    assert.deepEqual(await snapshotTables(getDb().db), before);
    assert.equal((await orderRow('q2')).asset_sha256, null);
  });

  it('Certify with a claim never held: 409, nothing written', async () => {
    await openOrder(w, 'rex', 'q3');
    const before = await snapshotTables(getDb().db);
    const res = await decide(w, 'rita', 'q3', 'certify', 'looks human', NEVER_HELD);
    assert.equal(res.statusCode, 409, res.body.slice(0, 300));
    assert.deepEqual(await snapshotTables(getDb().db), before);
  });

  it('the control: an accepted Certify records the digest with the decision, in the same comparison', async () => {
    const { claimId } = await openOrder(w, 'rita', 'q4');
    assert.ok(claimId);
    const before = await orderRow('q4');
    const res = await decide(w, 'rita', 'q4', 'certify', 'looks human', claimId);
    assert.equal(res.statusCode, 200, res.body.slice(0, 300));
    const afterwards = await orderRow('q4');
    assert.equal(before.asset_sha256, null);
    assert.match(String(afterwards.asset_sha256), /^[0-9a-f]{64}$/);
    const certificates = await getDb().db.selectFrom('certificates').select(['asset_sha256']).where('order_id', '=', 'q4').execute();
    assert.deepEqual(certificates.map((c) => c.asset_sha256), [afterwards.asset_sha256]);
  });
});
