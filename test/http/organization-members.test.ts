/**
 * GET /v1/organizations/{organization_id}/members: every member reads their own organization's list
 * (e-mail addresses, administrators apart, sorted); any other id is 404. On PGlite and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { describeOnEachDatabase } from '../helpers/database.js';
import { ACME, GLOBEX, USERS, type FixtureUserName } from '../helpers/fixtures.js';
import { startApi, type Api } from './api-harness.js';

const OP = 'get_organization_members_v1_organizations__organization_id__members_get';
const url = (id: string) => `/v1/organizations/${encodeURIComponent(id)}/members`;

const ACME_MEMBERS = {
  org_admins: [USERS.admin.email],
  not_org_admins: [USERS.editor.email, USERS.loner.email, USERS.viewer.email],
};

describeOnEachDatabase('organization members', (getDb) => {
  let api: Api;
  before(async () => {
    api = await startApi(getDb());
  });
  after(() => api.close());

  for (const user of ['admin', 'editor', 'viewer', 'loner'] as FixtureUserName[]) {
    it(`${user} reads the Acme member list and gets 404 for Globex`, async () => {
      const own = await api.get(url(ACME.id), user);
      assert.equal(own.statusCode, 200);
      api.openapi.assertResponse(OP, 200, own.json());
      assert.deepEqual(own.json(), ACME_MEMBERS);
      const other = await api.get(url(GLOBEX.id), user);
      assert.equal(other.statusCode, 404);
      api.openapi.assertResponse(OP, 404, other.json());
      assert.deepEqual(other.json(), { detail: 'Organization not found' });
    });
  }

  it('a Globex member sees only Globex', async () => {
    assert.deepEqual((await api.get(url(GLOBEX.id), 'other')).json(), { org_admins: [USERS.other.email], not_org_admins: [] });
    assert.equal((await api.get(url(ACME.id), 'other')).statusCode, 404);
  });

  it('an upper-case id is the same organization', async () => {
    assert.deepEqual((await api.get(url(ACME.id.toUpperCase()), 'viewer')).json(), ACME_MEMBERS);
  });

  it('a non-UUID or unknown id is 404, never a database error', async () => {
    for (const id of ['acme', "' OR 1=1 --", '0a0a0a0a-0000-4000-8000-00000000000z', '00000000-0000-4000-8000-000000000000', 'é']) {
      const res = await api.get(url(id), 'admin');
      assert.equal(res.statusCode, 404, id);
      assert.deepEqual(res.json(), { detail: 'Organization not found' });
    }
  });

  it('no token is 401; the 404 detail follows the language', async () => {
    assert.equal((await api.get(url(ACME.id), null)).statusCode, 401);
    const res = await api.get(url(GLOBEX.id), 'admin', { lang: 'de' });
    assert.deepEqual(res.json(), { detail: 'Organisation nicht gefunden' });
    assert.equal(res.headers['content-language'], 'de');
  });
});
