/**
 * Human review, black box (docs/review.md): the queue, claims (taken, seen by others, renewed, released,
 * expired with the clock moved), the four decisions and what each sets, separation of duties, the
 * customer's response putting the order back in the queue flagged, the editor's JSON endpoint (same
 * schema as the API's `annotations`, CSRF, history), races (one winner, the rest 409, nothing half
 * applied) and escaping of notes. PGlite always, PostgreSQL when TEST_DATABASE_URL is set.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { listOrderEvents } from '../../src/domain/orders/order-lifecycle.repository.js';
import { catalogues } from '../../src/i18n/index.js';
import { eventually } from '../helpers/certificates.js';
import { describeOnEachDatabase } from '../helpers/database.js';
import { CERTIFIER_ORG, CUSTOMER_ORG, PEOPLE, apiOrder, decide, get, openOrder, openReviewWorld, postForm, sendJson, type ReviewWorld } from './review-world.js';

const MINUTE = 60_000;
const SCRIPT = '<script>alert("pwned")</script><img src=x onerror=alert(1)>';

function queueOrderIds(html: string): string[] {
  return [...html.matchAll(/<tr data-order-id="([^"]+)"/g)].map((m) => m[1]!);
}

describeOnEachDatabase('human review', (getDb) => {
  let w: ReviewWorld;

  before(async () => {
    w = await openReviewWorld(getDb(), 12);
  });
  after(async () => {
    await w?.close();
  });

  const eventsOf = async (orderId: string) => listOrderEvents(getDb().db, orderId);
  const reviewEventTypes = async (orderId: string) =>
    (await eventsOf(orderId)).filter((e) => e.type === 'claimed' || e.type === 'annotation_changed').map((e) => e.type);

  it('only reviewers see the Review entry and the review routes; everyone else gets 404', async () => {
    const customer = await get(w, 'customer', '/orders');
    assert.doesNotMatch(customer.body, /href="\/review"/);
    const rita = await get(w, 'rita', '/orders');
    assert.match(rita.body, /<a href="\/review"[^>]*>Review<\/a>/);
    for (const url of ['/review', '/review/orders/q1']) assert.equal((await get(w, 'customer', url)).statusCode, 404, url);
    assert.equal((await postForm(w, 'customer', '/review/orders/q1/decision', { decision: 'certify', note: 'x', claim_id: 'x' })).statusCode, 404);
    assert.equal((await sendJson(w, 'customer', 'POST', '/review/orders/q1/claim/renew', { claim_id: '00000000-0000-4000-8000-000000000000' })).statusCode, 404);
    assert.equal((await sendJson(w, 'customer', 'PUT', '/review/orders/q1/edits', { claim_id: '00000000-0000-4000-8000-000000000000' })).statusCode, 404);
    // Signed out: pages go to the sign-in page, the JSON endpoints answer 401.
    assert.equal((await w.app.inject({ method: 'GET', url: '/review' })).statusCode, 303);
    assert.equal((await w.app.inject({ method: 'PUT', url: '/review/orders/q1/edits', headers: { 'content-type': 'application/json' }, payload: '{}' })).statusCode, 401);
  });

  it('the queue lists finished In Progress orders across organizations, oldest first, never the reviewer’s own', async () => {
    // q3's analysis is still queued: not in the queue yet.
    await getDb().db.insertInto('jobs').values({ kind: 'analyze_order', payload: JSON.stringify({ order_id: 'q3' }), run_at: new Date(), singleton_key: 'analyze:q3', created_at: new Date() }).execute();
    const page = await get(w, 'rita', '/review');
    assert.equal(page.statusCode, 200);
    const ids = queueOrderIds(page.body);
    assert.deepEqual(ids, ['q11', 'q10', 'q9', 'q8', 'q7', 'q6', 'q5', 'q4', 'q2', 'q1', 'q0']);
    assert.match(page.body, /data-count="11">All organizations \(11\)/);
    assert.match(page.body, /Customer &amp; Co &lt;Org&gt; \(11\)/);
    const byOrg = await get(w, 'rita', `/review?organization=${CUSTOMER_ORG}`);
    assert.equal(queueOrderIds(byOrg.body).length, 11);
    const otherOrg = await get(w, 'rita', `/review?organization=${CERTIFIER_ORG}`);
    assert.deepEqual(queueOrderIds(otherOrg.body), []);
    // The customer's in-house reviewer: their own organization's orders are never in their queue.
    assert.deepEqual(queueOrderIds((await get(w, 'customerReviewer', '/review')).body), []);
    const running = await openOrder(w, 'rita', 'q3');
    assert.equal(running.claimId, null);
    assert.match(running.page.body, /data-claim="none"/);
    await getDb().db.updateTable('jobs').set({ state: 'done', finished_at: new Date() }).where('singleton_key', '=', 'analyze:q3').execute();
    assert.ok(queueOrderIds((await get(w, 'rita', '/review')).body).includes('q3'));
  });

  it('the review page shows what a review needs, and nothing of members or credentials', async () => {
    const { page, claimId } = await openOrder(w, 'rita', 'q0');
    assert.equal(page.statusCode, 200);
    assert.ok(claimId);
    assert.match(page.body, /data-organization-name>Customer &amp; Co &lt;Org&gt;</);
    assert.match(page.body, /Spring catalogue/);
    assert.match(page.body, /object_flag_threshold<\/dt><dd>0.42/);
    assert.match(page.body, /\/objects\/orgs\/1e000000-0000-4000-8000-000000000001\/previews\/q0\.png\?/);
    assert.match(page.body, /<a href="[^"]*\/objects\/orgs\/[^"]*q0\.png\?[^"]*" download data-original>Download q0\.png<\/a>/);
    for (const secret of [PEOPLE.customerReviewer.email, PEOPLE.customerReviewer.username, 'customer-client', 'customer-secret']) {
      assert.ok(!page.body.includes(secret), `the review page mentions ${secret}`);
    }
    // Another order of the same organization, as an id of its own: the page's random tokens (CSRF,
    // presigned signatures; base64url) contain "q1" now and then, so a bare substring check was flaky.
    assert.doesNotMatch(page.body, /(?<![A-Za-z0-9_-])q1(?![A-Za-z0-9_-])/, 'the review page mentions order q1');
    // Each decision button by its exact accessible name, and the required Note.
    for (const name of ['Certify', 'Record findings', 'Ask for evidence', 'Refuse']) assert.match(page.body, new RegExp(`<button type="submit" name="decision" value="[a-z_]+"[^>]*>${name}</button>`));
    assert.match(page.body, /<label for="decision-note">Note<\/label>\s*<textarea id="decision-note" name="note"[^>]* required/);
    assert.equal((await postForm(w, 'rita', '/review/orders/q0/claim/release', { claim_id: claimId! })).statusCode, 303);
  });

  it('opening claims the order (a claimed event); others see "being reviewed by" and cannot decide', async () => {
    const rita = await openOrder(w, 'rita', 'q1');
    assert.ok(rita.claimId);
    assert.match(rita.page.body, /data-claim="yours"/);
    assert.deepEqual(await reviewEventTypes('q1'), ['claimed']);
    const again = await openOrder(w, 'rita', 'q1');
    assert.equal(again.claimId, rita.claimId, 'reopening keeps the claim');
    assert.deepEqual(await reviewEventTypes('q1'), ['claimed'], 'reopening is not a new claim');
    const rex = await openOrder(w, 'rex', 'q1');
    assert.equal(rex.claimId, null);
    assert.match(rex.page.body, /Being reviewed by Rita Reviewer/);
    assert.doesNotMatch(rex.page.body, /data-decision-form/);
    assert.match((await get(w, 'rex', '/review')).body, /data-order-id="q1"[\s\S]*?Being reviewed by Rita Reviewer/);
    // Rex posting a decision anyway, with Rita's claim id or an invented one: 409, nothing applied.
    for (const claimId of [rita.claimId!, '00000000-0000-4000-8000-000000000000']) {
      const res = await decide(w, 'rex', 'q1', 'certify', 'mine now', claimId);
      assert.equal(res.statusCode, 409, res.body);
    }
    assert.equal((await apiOrder(w, 'q1')).order_state, 'In Progress');
  });

  it('a claim is renewed while the page is open and expires when it is not (clock moved, no sleeping)', async () => {
    const rita = await openOrder(w, 'rita', 'q2');
    assert.match(rita.page.body, /data-renew-url="\/review\/orders\/q2\/claim\/renew"/);
    w.clock.advance(10 * MINUTE);
    const renewed = await sendJson(w, 'rita', 'POST', '/review/orders/q2/claim/renew', { claim_id: rita.claimId });
    assert.equal(renewed.statusCode, 200, renewed.body);
    assert.equal(new Date((renewed.json() as { expires_at: string }).expires_at).getTime(), w.clock.now().getTime() + 15 * MINUTE);
    assert.equal((await sendJson(w, 'rita', 'POST', '/review/orders/q2/claim/renew', { claim_id: rita.claimId }, false)).statusCode, 403, 'CSRF header required');
    w.clock.advance(10 * MINUTE);
    assert.equal((await openOrder(w, 'rex', 'q2')).claimId, null, '20 minutes after opening, renewed at 10: still Rita’s');
    // Rita closes the tab: 16 minutes later the claim is over and Rex takes the order.
    w.clock.advance(16 * MINUTE);
    const rex = await openOrder(w, 'rex', 'q2');
    assert.ok(rex.claimId);
    assert.notEqual(rex.claimId, rita.claimId);
    // Rita's stale page can neither renew nor decide.
    assert.equal((await sendJson(w, 'rita', 'POST', '/review/orders/q2/claim/renew', { claim_id: rita.claimId })).statusCode, 409);
    const late = await decide(w, 'rita', 'q2', 'certify', 'late', rita.claimId!);
    assert.equal(late.statusCode, 409);
    assert.match(late.body, /being reviewed by Rex Reviewer/);
    assert.equal((await apiOrder(w, 'q2')).order_state, 'In Progress');
    // Released by Rex: Rita may take it again at once.
    assert.equal((await postForm(w, 'rex', '/review/orders/q2/claim/release', { claim_id: rex.claimId! })).statusCode, 303);
    assert.ok((await openOrder(w, 'rita', 'q2')).claimId);
    assert.deepEqual(await reviewEventTypes('q2'), ['claimed', 'claimed', 'claimed']);
  });

  it('each decision applies its move with the note, sets the review fields, and releases the claim', async () => {
    const cases = [
      { order: 'q4', decision: 'certify', state: 'Human Certified', reviewed: true },
      { order: 'q5', decision: 'record_findings', state: 'Reviewed', reviewed: true },
      { order: 'q6', decision: 'refuse', state: 'Failed', reviewed: true },
      { order: 'q7', decision: 'ask_for_evidence', state: 'Action Required', reviewed: false },
    ];
    for (const c of cases) {
      const { claimId } = await openOrder(w, 'rita', c.order);
      const res = await decide(w, 'rita', c.order, c.decision, `note for ${c.order}`, claimId!);
      assert.equal(res.statusCode, 200, res.body);
      assert.match(res.body, new RegExp(`The order is now ${c.state}`));
      const order = await apiOrder(w, c.order);
      assert.equal(order.order_state, c.state);
      assert.equal(order.reviewed_by, c.reviewed ? PEOPLE.rita.email : null);
      assert.equal(order.review_timestamp, c.reviewed ? w.clock.now().toISOString() : null);
      const move = (await eventsOf(c.order)).filter((e) => e.type === 'state_changed').at(-1)!;
      assert.deepEqual([move.type, move.from_state, move.to_state, move.actor, move.note], ['state_changed', 'In Progress', c.state, PEOPLE.rita.email, `note for ${c.order}`]);
      if (c.reviewed) assert.deepEqual(move.changes?.reviewed_by, { before: null, after: PEOPLE.rita.email });
      assert.equal(await getDb().db.selectFrom('review_claims').select('order_id').where('order_id', '=', c.order).executeTakeFirst(), undefined);
      // Certify issues the certificate in the same transaction; the other decisions issue none.
      const certificate = await w.app.inject({ method: 'GET', url: `/v1/orders/${c.order}/certificate`, headers: { authorization: `Bearer ${w.customerToken}` } });
      assert.equal(certificate.statusCode, c.decision === 'certify' ? 200 : 404, certificate.body);
      if (c.decision === 'certify') {
        const issued = certificate.json() as { status: string; certificate_id: string };
        assert.equal(issued.status, 'valid');
        const last = (await eventsOf(c.order)).at(-1)!;
        assert.deepEqual([last.type, last.actor, last.changes], ['certificate_issued', PEOPLE.rita.email, { certificate_id: { before: null, after: issued.certificate_id } }]);
      }
      assert.ok(!queueOrderIds((await get(w, 'rex', '/review')).body).includes(c.order));
      // Double submit: the same form again is 409 and changes nothing.
      const again = await decide(w, 'rita', c.order, c.decision, 'again', claimId!);
      assert.equal(again.statusCode, 409);
      assert.equal((await eventsOf(c.order)).filter((e) => e.type === 'state_changed').length, 1);
    }
  });

  it('a reviewer revokes a certificate on the review page: reason required, CSRF, final, shown at once by API, page and badge', async () => {
    // q4 was certified by Rita above. Its review page shows the certificate with the Revoke control.
    const certificate = async () => {
      const res = await w.app.inject({ method: 'GET', url: '/v1/orders/q4/certificate', headers: { authorization: `Bearer ${w.customerToken}` } });
      assert.equal(res.statusCode, 200, res.body);
      return res.json() as { certificate_id: string; status: string; revoked_at: string | null; revocation_reason: string | null };
    };
    const issued = await certificate();
    assert.equal(issued.status, 'valid');
    const id = issued.certificate_id;
    const publicEtag = (await w.app.inject({ method: 'GET', url: `/v1/certificates/${id}` })).headers.etag as string;
    const badgeEtag = (await w.app.inject({ method: 'GET', url: `/verify/${id}/badge.svg` })).headers.etag as string;
    // Reachable from the queue: Rita's "Recently certified" links to the order's review page. Only the
    // reviewer who certified lists it (no unrelated orders); any reviewer may open the page and revoke.
    const queue = await get(w, 'rita', '/review');
    assert.match(queue.body, new RegExp(`<tr data-certificate-id="${id}">\\s*<td><a href="/review/orders/q4">`));
    assert.doesNotMatch((await get(w, 'rex', '/review')).body, new RegExp(id));
    assert.doesNotMatch((await get(w, 'customerReviewer', '/review')).body, new RegExp(id));
    const page = await get(w, 'rex', '/review/orders/q4');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /data-certificate-status="valid"/);
    assert.match(page.body, new RegExp(`<a href="/verify/${id}" data-verify-link>`));
    assert.match(page.body, /<form method="post" action="\/review\/orders\/q4\/certificate\/revoke"[^>]*data-revoke-form>\s*<input type="hidden" name="_csrf" value="[^"]+">/);
    assert.match(page.body, /<label for="revoke-reason">Reason for revoking<\/label>\s*<textarea id="revoke-reason" name="reason"[^>]* required/);
    assert.match(page.body, /<button type="submit" class="danger">Revoke<\/button>/);
    // Separation of duties: the customer's in-house reviewer may not revoke their own organization's certificate.
    assert.equal((await get(w, 'customerReviewer', '/review/orders/q4')).statusCode, 403);
    assert.equal((await postForm(w, 'customerReviewer', '/review/orders/q4/certificate/revoke', { reason: 'mine' })).statusCode, 403);
    // Not a reviewer: the route does not exist. No CSRF token: refused. No reason: the page again with the message.
    assert.equal((await postForm(w, 'customer', '/review/orders/q4/certificate/revoke', { reason: 'x' })).statusCode, 404);
    assert.equal((await postForm(w, 'rex', '/review/orders/q4/certificate/revoke', { reason: 'no token' }, false)).statusCode, 403);
    const empty = await postForm(w, 'rex', '/review/orders/q4/certificate/revoke', { reason: '   ' });
    assert.equal(empty.statusCode, 422);
    assert.match(empty.body, /Write a reason \(at most 2000 characters\) before revoking\./);
    assert.equal((await certificate()).status, 'valid', 'nothing applied');
    // An order without a certificate: 404.
    assert.equal((await postForm(w, 'rex', '/review/orders/q5/certificate/revoke', { reason: 'none' })).statusCode, 404);

    const reason = `Licensed stock, not the customer's own work ${SCRIPT}`;
    const revoked = await postForm(w, 'rex', '/review/orders/q4/certificate/revoke', { reason });
    assert.equal(revoked.statusCode, 303, revoked.body);
    assert.equal(revoked.headers.location, '/review/orders/q4#certificate-title');
    // At once: the API (both reads), the verify page and the badge; their ETags change so caches revalidate to it.
    const after = await certificate();
    assert.deepEqual([after.status, after.revocation_reason], ['revoked', reason]);
    assert.equal(after.revoked_at, w.clock.now().toISOString());
    // The public reads are served from memory until PostgreSQL's change notification arrives (ms).
    const publicRead = await eventually(
      () => w.app.inject({ method: 'GET', url: `/v1/certificates/${id}`, headers: { 'if-none-match': publicEtag } }),
      (r) => r.statusCode !== 304,
      'the revocation on the public API',
    );
    assert.equal(publicRead.statusCode, 200, 'the old ETag no longer matches');
    assert.equal((publicRead.json() as { status: string }).status, 'revoked');
    assert.match(String(publicRead.headers['cache-control']), /no-cache/);
    const badge = await eventually(
      () => w.app.inject({ method: 'GET', url: `/verify/${id}/badge.svg`, headers: { 'if-none-match': badgeEtag } }),
      (r) => r.statusCode !== 304,
      'the revocation on the badge',
    );
    assert.equal(badge.statusCode, 200);
    assert.match(badge.body, />Revoked<\/text>/);
    assert.match(String(badge.headers['cache-control']), /no-cache/);
    const verify = await w.app.inject({ method: 'GET', url: `/verify/${id}` });
    assert.equal(verify.statusCode, 200);
    assert.equal(verify.headers['cache-control'], 'no-store');
    assert.match(verify.body, /data-status="revoked"/);
    assert.ok(!verify.body.includes(SCRIPT));
    assert.ok(verify.body.includes('Licensed stock, not the customer&#39;s own work &lt;script&gt;') || verify.body.includes('Licensed stock, not the customer&#x27;s own work &lt;script&gt;'), 'the reason, escaped');
    // The review page shows the revocation (escaped) and no Revoke control any more: revocation is final.
    assert.match((await get(w, 'rita', '/review')).body, new RegExp(`<tr data-certificate-id="${id}">[\\s\\S]*?>Revoked</span>`));
    const reviewed = await get(w, 'rita', '/review/orders/q4');
    assert.match(reviewed.body, /data-certificate-status="revoked"/);
    assert.doesNotMatch(reviewed.body, /data-revoke-form/);
    assert.ok(!reviewed.body.includes(SCRIPT));
    assert.match(reviewed.body, /<span data-revocation-reason>Licensed stock, not the customer&#(39|x27);s own work &lt;script&gt;/);
    const again = await postForm(w, 'rita', '/review/orders/q4/certificate/revoke', { reason: 'twice' });
    assert.equal(again.statusCode, 409);
    assert.match(again.body, /already revoked/);
    assert.equal((await certificate()).revocation_reason, reason, 'the first revocation stands');
    // The order keeps its state; the history records the revocation by the reviewer's e-mail, the reason as its note.
    assert.equal((await apiOrder(w, 'q4')).order_state, 'Human Certified');
    const last = (await eventsOf('q4')).at(-1)!;
    assert.deepEqual([last.type, last.actor, last.note, last.changes], ['certificate_revoked', PEOPLE.rex.email, reason, { certificate_status: { before: 'valid', after: 'revoked' } }]);
  });

  it('Certify on an order whose asset bytes are missing is 409 with nothing applied', async () => {
    await getDb().db.updateTable('orders').set({ asset_key: null }).where('order_id', '=', 'q3').execute();
    const { claimId } = await openOrder(w, 'rita', 'q3');
    const res = await decide(w, 'rita', 'q3', 'certify', 'looks human', claimId!);
    assert.equal(res.statusCode, 409, res.body);
    assert.equal((await apiOrder(w, 'q3')).order_state, 'In Progress');
    assert.equal((await apiOrder(w, 'q3')).reviewed_by, null);
    // The claim is kept: the reviewer can still record findings instead.
    assert.equal((await decide(w, 'rita', 'q3', 'record_findings', 'no original file to certify', claimId!)).statusCode, 200);
  });

  it('a decision needs a note, a known decision and the CSRF token', async () => {
    const { claimId } = await openOrder(w, 'rita', 'q8');
    assert.equal((await decide(w, 'rita', 'q8', 'certify', '   ', claimId!)).statusCode, 422);
    assert.equal((await decide(w, 'rita', 'q8', 'approve', 'note', claimId!)).statusCode, 422);
    assert.equal((await postForm(w, 'rita', '/review/orders/q8/decision', { decision: 'certify', note: 'n', claim_id: claimId! }, false)).statusCode, 403);
    assert.equal((await postForm(w, 'rita', '/review/orders/q8/claim/release', { claim_id: claimId! }, false)).statusCode, 403);
    // A malformed claim id is no claim: 409 for a decision, nothing released.
    assert.equal((await decide(w, 'rita', 'q8', 'certify', 'n', 'not-a-uuid')).statusCode, 409);
    assert.equal((await postForm(w, 'rita', '/review/orders/q8/claim/release', { claim_id: 'not-a-uuid' })).statusCode, 303);
    assert.equal((await openOrder(w, 'rex', 'q8')).claimId, null, 'still Rita’s claim');
    assert.equal((await decide(w, 'rita', 'q8', 'certify', 'n', claimId!.toUpperCase())).statusCode, 200, 'the claim id in any letter case');
    assert.equal((await apiOrder(w, 'q8')).order_state, 'Human Certified');
  });

  it('separation of duties: a reviewer of the order’s own organization is refused with the reason (403)', async () => {
    const page = await get(w, 'customerReviewer', '/review/orders/q9');
    assert.equal(page.statusCode, 403);
    assert.match(page.body, /separation of duties/);
    const res = await decide(w, 'customerReviewer', 'q9', 'certify', 'own', '00000000-0000-4000-8000-000000000000');
    assert.equal(res.statusCode, 403);
    const edit = await sendJson(w, 'customerReviewer', 'PUT', '/review/orders/q9/edits', { claim_id: '00000000-0000-4000-8000-000000000000', confidence: 1 });
    assert.equal(edit.statusCode, 403);
    assert.match((edit.json() as { detail: string }).detail, /separation of duties/);
    assert.equal((await apiOrder(w, 'q9')).order_state, 'In Progress');
    assert.deepEqual(await reviewEventTypes('q9'), []);
  });

  it('Ask for evidence shows the note (escaped) to the customer; the response puts the order back in the queue, flagged', async () => {
    const { claimId } = await openOrder(w, 'rex', 'q10');
    assert.equal((await decide(w, 'rex', 'q10', 'ask_for_evidence', `Send the layered file ${SCRIPT}`, claimId!)).statusCode, 200);
    const orderPage = await get(w, 'customer', '/orders/q10');
    assert.match(orderPage.body, /data-evidence-request/);
    assert.ok(orderPage.body.includes('Send the layered file &lt;script&gt;alert(&quot;pwned&quot;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;'));
    assert.ok(!orderPage.body.includes(SCRIPT));
    // An analysis flag is not a reviewer's request: nothing is shown for it.
    assert.doesNotMatch((await get(w, 'customer', '/orders/x-action')).body, /data-evidence-request/);
    const before = (await get(w, 'rita', '/review?came_back=1')).body;
    assert.deepEqual(queueOrderIds(before), []);
    const response = await w.app.inject({
      method: 'POST',
      url: '/v1/orders/q10/responses',
      headers: { authorization: `Bearer ${w.customerToken}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ message: `Here it is ${SCRIPT}` }),
    });
    assert.equal(response.statusCode, 201, response.body);
    w.clock.advance(MINUTE);
    const flagged = await get(w, 'rita', '/review?came_back=1');
    assert.deepEqual(queueOrderIds(flagged.body), ['q10']);
    assert.match(flagged.body, /data-count="1">Came back from Action Required \(1\)/);
    assert.match(flagged.body, /data-came-back/);
    // Back in the queue by the time of the response: after every order created before it.
    assert.equal(queueOrderIds((await get(w, 'rita', '/review')).body).at(-1), 'q10');
    const review = await openOrder(w, 'rita', 'q10');
    assert.ok(!review.page.body.includes(SCRIPT));
    assert.ok(review.page.body.includes('Here it is &lt;script&gt;'));
    assert.match(review.page.body, /data-evidence-kind="request"[\s\S]*data-evidence-kind="response"/);
    // The API's history shows the claim, the request with its note, and the response, reviewers by e-mail.
    const history = await w.app.inject({ method: 'GET', url: '/v1/orders/q10/history', headers: { authorization: `Bearer ${w.customerToken}` } });
    assert.equal(history.statusCode, 200, history.body);
    const events = (history.json() as { events: Array<{ type: string; actor: string; note: string | null; to_state: string | null }> }).events;
    assert.deepEqual(
      events.map((e) => [e.type, e.actor, e.to_state]),
      [
        ['claimed', PEOPLE.rex.email, null],
        ['state_changed', PEOPLE.rex.email, 'Action Required'],
        ['responded', PEOPLE.customer.email, 'In Progress'],
        ['claimed', PEOPLE.rita.email, null],
      ],
    );
    assert.equal(events[1]!.note, `Send the layered file ${SCRIPT}`);
    await postForm(w, 'rita', '/review/orders/q10/claim/release', { claim_id: review.claimId! });
  });

  it('editor saves: same schema as the API’s annotations, visible in GET /v1/orders at once, recorded with before/after', async () => {
    const { claimId } = await openOrder(w, 'rita', 'q11');
    const annotation = {
      id: 'a1',
      bodies: [{ value: SCRIPT, id: 'b1', annotation: 'a1' }],
      properties: { needs_remediation: true, ai_likelihood: 0.9 },
      target: { annotation: 'a1', selector: { type: 'RECTANGLE', geometry: { bounds: { minX: 0.1, minY: 0.2, maxX: 0.4, maxY: 0.6 }, x: 0.1, y: 0.2, w: 0.3, h: 0.4 } } },
    };
    const saved = await sendJson(w, 'rita', 'PUT', '/review/orders/q11/edits', { claim_id: claimId, annotations: [annotation], remediation: 1, confidence: 0.75 });
    assert.equal(saved.statusCode, 200, saved.body);
    const order = await apiOrder(w, 'q11');
    assert.equal(order.remediation, 1);
    assert.equal(order.confidence, 0.75);
    assert.deepEqual(order.annotations, [{ ...annotation }]);
    const changed = (await eventsOf('q11')).filter((e) => e.type === 'annotation_changed');
    assert.equal(changed.length, 1);
    assert.equal(changed[0]!.actor, PEOPLE.rita.email);
    assert.deepEqual(changed[0]!.changes?.remediation, { before: 0, after: 1 });
    assert.deepEqual(changed[0]!.changes?.annotations, { before: [], after: [annotation] });
    // Saving the same values again records nothing.
    assert.equal((await sendJson(w, 'rita', 'PUT', '/review/orders/q11/edits', { claim_id: claimId, remediation: 1, confidence: 0.75 })).statusCode, 200);
    assert.equal((await eventsOf('q11')).filter((e) => e.type === 'annotation_changed').length, 1);
    // Fields left out stay as they are.
    assert.equal((await sendJson(w, 'rita', 'PUT', '/review/orders/q11/edits', { claim_id: claimId, confidence: 0.5 })).statusCode, 200);
    assert.equal((await apiOrder(w, 'q11')).remediation, 1);
    assert.equal(((await apiOrder(w, 'q11')).annotations as unknown[]).length, 1);
    // The annotation body is escaped on the review page.
    const page = (await openOrder(w, 'rita', 'q11')).page.body;
    assert.ok(!page.includes(SCRIPT));
    // ... and everywhere else it shows: another reviewer's read-only page, the customer's order page (its list
    // and, for the administrator, the history's before/after). Never as markup, always as visible text.
    for (const [who, url] of [['rita', '/review/orders/q11'], ['rex', '/review/orders/q11'], ['customer', '/orders/q11']] as const) {
      const body = (await get(w, who, url)).body;
      assert.ok(!body.includes('<script>alert') && !body.includes('<img src=x onerror'), `${who} ${url}: no live markup`);
      assert.ok(body.includes('&lt;script&gt;alert('), `${who} ${url}: the body shows as text`);
    }
    // Refusals: a bad selector type, an unknown field, remediation out of range (422, pydantic style); no CSRF (403).
    const bad = await sendJson(w, 'rita', 'PUT', '/review/orders/q11/edits', {
      claim_id: claimId,
      annotations: [{ ...annotation, target: { annotation: 'a1', selector: { type: 'CIRCLE', geometry: annotation.target.selector.geometry } } }],
      remediation: 2,
      extra: true,
    });
    assert.equal(bad.statusCode, 422, bad.body);
    const locs = (bad.json() as { detail: Array<{ loc: unknown[] }> }).detail.map((d) => d.loc.join('.'));
    assert.ok(locs.some((l) => l.startsWith('body.annotations.0.target.selector.type')), locs.join(' '));
    assert.ok(locs.includes('body.remediation'), locs.join(' '));
    assert.ok(locs.some((l) => l.includes('extra')), locs.join(' '));
    assert.equal((await sendJson(w, 'rita', 'PUT', '/review/orders/q11/edits', { claim_id: claimId, confidence: 0.1 }, false)).statusCode, 403);
    // Someone else's claim cannot edit.
    assert.equal((await sendJson(w, 'rex', 'PUT', '/review/orders/q11/edits', { claim_id: claimId, confidence: 0.1 })).statusCode, 409);
    assert.equal((await apiOrder(w, 'q11')).confidence, 0.5);
  });

  it('races: concurrent decisions by the holder (double click) and another reviewer give one winner, the rest 409', async () => {
    const { claimId } = await openOrder(w, 'rita', 'q11');
    const attempts = [
      decide(w, 'rita', 'q11', 'certify', 'one', claimId!),
      decide(w, 'rita', 'q11', 'refuse', 'two', claimId!),
      decide(w, 'rex', 'q11', 'record_findings', 'three', claimId!),
      decide(w, 'rita', 'q11', 'ask_for_evidence', 'four', claimId!),
      decide(w, 'rita', 'q11', 'record_findings', 'five', claimId!),
    ];
    const statuses = (await Promise.all(attempts)).map((r) => r.statusCode);
    assert.equal(statuses.filter((s) => s === 200).length, 1, statuses.join(','));
    assert.equal(statuses.filter((s) => s === 409).length, 4, statuses.join(','));
    const moves = (await eventsOf('q11')).filter((e) => e.type === 'state_changed');
    assert.equal(moves.length, 1);
    assert.equal((await apiOrder(w, 'q11')).order_state, moves[0]!.to_state);
  });

  it('races: a customer response arriving with stale decisions: the response wins, the decisions are 409', async () => {
    const { claimId } = await openOrder(w, 'rita', 'q9');
    assert.equal((await decide(w, 'rita', 'q9', 'ask_for_evidence', 'layers please', claimId!)).statusCode, 200);
    const [response, ...stale] = await Promise.all([
      w.app.inject({
        method: 'POST',
        url: '/v1/orders/q9/responses',
        headers: { authorization: `Bearer ${w.customerToken}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ message: 'attached' }),
      }),
      decide(w, 'rita', 'q9', 'certify', 'stale one', claimId!),
      decide(w, 'rita', 'q9', 'refuse', 'stale two', claimId!),
    ]);
    assert.equal(response!.statusCode, 201, response!.body);
    assert.deepEqual(stale.map((r) => r.statusCode), [409, 409]);
    assert.equal((await apiOrder(w, 'q9')).order_state, 'In Progress');
    const moves = (await eventsOf('q9')).filter((e) => e.from_state !== null).map((e) => `${e.type}: ${e.from_state} -> ${e.to_state}`);
    assert.deepEqual(moves, ['state_changed: In Progress -> Action Required', 'responded: Action Required -> In Progress']);
  });

  it('the review pages and the editor’s labels are in the visitor’s language; the contract’s names stay English', async () => {
    // q1 is free (nobody opened it): Rita, reading German, claims it and gets the editor's texts in German.
    const page = (await get(w, 'rita', '/review/orders/q1?lang=de')).body;
    const attribute = /data-editor-messages="([^"]*)"/.exec(page)?.[1];
    assert.ok(attribute, 'the editor’s texts are on the page');
    const unescaped = attribute.replace(/&quot;/g, '"').replace(/&#39;|&#x27;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
    const messages = JSON.parse(unescaped) as Record<string, string>;
    for (const name of ['save', 'tool_rectangle', 'body', 'needs_remediation', 'shortcut_select', 'polygon_corners']) {
      assert.equal(messages[name], catalogues.de[`web.review.editor.${name}` as keyof typeof catalogues.de], name);
    }
    assert.equal(Object.keys(messages).length, Object.keys(catalogues.en).filter((k) => k.startsWith('web.review.editor.')).length);
    assert.ok(page.includes(catalogues.de['web.review.decision_title']));
    for (const name of ['>Note</label>', '>Certify</button>', '>Record findings</button>', '>Ask for evidence</button>', '>Refuse</button>']) assert.ok(page.includes(name), name);
    const queue = (await get(w, 'rita', '/review?lang=ja')).body;
    assert.ok(queue.includes(catalogues.ja['web.review.queue_title']));
    assert.ok(queue.includes(catalogues.ja['web.review.recent_title']), 'Rita’s recent certificates, in Japanese');
  });
});
