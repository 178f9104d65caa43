/**
 * GET /v1/projects and GET /v1/projects/{project_id}: visibility matrix (docs/api.md), shape, ordering
 * and thresholds, every response checked against the served OpenAPI document. On PGlite and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { ProjectT } from '../../src/contract/schemas.js';
import { BUILT_IN_DETECTION_THRESHOLDS } from '../../src/domain/projects/index.js';
import { describeOnEachDatabase } from '../helpers/database.js';
import { ACME, GLOBEX, USERS, type FixtureUserName } from '../helpers/fixtures.js';
import { obtainToken, startApi, type Api } from './api-harness.js';

const LIST = 'get_projects_v1_projects_get';
const ONE = 'get_project_v1_projects__project_id__get';

/** Who sees which Acme/Globex project (names in the expected order). */
const VISIBLE: Record<FixtureUserName, string[]> = {
  admin: ['beta', 'Écran', 'Zeta'],
  editor: ['beta', 'Zeta'],
  viewer: ['Zeta'],
  loner: [],
  other: ['Alpha'],
};

const ALL_PROJECTS = [...Object.values(ACME.projects), ...Object.values(GLOBEX.projects)];

describeOnEachDatabase('project endpoints', (getDb) => {
  let api: Api;
  before(async () => {
    api = await startApi(getDb());
  });
  after(() => api.close());

  for (const [user, names] of Object.entries(VISIBLE) as Array<[FixtureUserName, string[]]>) {
    it(`${user} lists exactly the projects they see, sorted by name`, async () => {
      const res = await api.get('/v1/projects', user);
      assert.equal(res.statusCode, 200);
      api.openapi.assertResponse(LIST, 200, res.json());
      assert.deepEqual((res.json() as ProjectT[]).map((p) => p.name), names);
    });

    it(`${user} reads each visible project and gets 404 for every other one`, async () => {
      for (const project of ALL_PROJECTS) {
        const res = await api.get(`/v1/projects/${project.id}`, user);
        api.openapi.assertResponse(ONE, res.statusCode, res.json());
        if (names.includes(project.name)) {
          assert.equal(res.statusCode, 200, `${user} → ${project.name}`);
          assert.equal((res.json() as ProjectT).id, project.id);
        } else {
          assert.equal(res.statusCode, 404, `${user} → ${project.name}`);
          assert.deepEqual(res.json(), { detail: 'Project not found' });
        }
      }
    });
  }

  it('a project shows its members sorted by e-mail, its creation date in RFC 3339 UTC and resolved thresholds', async () => {
    const res = await api.get(`/v1/projects/${ACME.projects.zeta.id}`, 'viewer');
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), {
      id: ACME.projects.zeta.id,
      name: 'Zeta',
      date_created: '2025-12-01T09:00:00.000Z',
      members: [
        { email: USERS.editor.email, role: 'editor' },
        { email: USERS.viewer.email, role: 'viewer' },
      ],
      detection_config: {
        // project → organization → built-in
        object_flag_threshold: 0.6,
        weighted_confidence_threshold: 0.7,
        default_object_flag_threshold: BUILT_IN_DETECTION_THRESHOLDS.object_flag_threshold,
        default_weighted_confidence_threshold: BUILT_IN_DETECTION_THRESHOLDS.weighted_confidence_threshold,
        org_object_flag_threshold: 0.6,
        org_weighted_confidence_threshold: BUILT_IN_DETECTION_THRESHOLDS.weighted_confidence_threshold,
      },
    });
  });

  it('a project without members or thresholds of its own', async () => {
    const res = await api.get(`/v1/projects/${ACME.projects.ecran.id}`, 'admin');
    const project = res.json() as ProjectT;
    assert.deepEqual(project.members, []);
    assert.equal(project.detection_config.object_flag_threshold, 0.6);
    assert.equal(project.detection_config.weighted_confidence_threshold, 0.5);
    const globex = (await api.get(`/v1/projects/${GLOBEX.projects.alpha.id}`, 'other')).json() as ProjectT;
    assert.equal(globex.detection_config.org_object_flag_threshold, 0.5);
  });

  it('an upper-case id names the same project', async () => {
    const res = await api.get(`/v1/projects/${ACME.projects.beta.id.toUpperCase()}`, 'editor');
    assert.equal(res.statusCode, 200);
    assert.equal((res.json() as ProjectT).id, ACME.projects.beta.id);
  });

  it('a 36-character id that is not a UUID is 404, never a database error', async () => {
    for (const id of ['x'.repeat(36), "0a0a0a0a-0000-4000-8000-000000'; -- ", '0a0a0a0a-0000-4000-8000-0000000000g1', '{0a0a0a0a-0000-4000-8000-000000000a}']) {
      assert.equal(id.length, 36);
      const res = await api.get(`/v1/projects/${encodeURIComponent(id)}`, 'admin');
      assert.equal(res.statusCode, 404, id);
      assert.deepEqual(res.json(), { detail: 'Project not found' });
    }
  });

  it('an id of another length is 422 string_too_short / string_too_long', async () => {
    const short = await api.get('/v1/projects/abc', 'admin');
    assert.equal(short.statusCode, 422);
    api.openapi.assertResponse(ONE, 422, short.json());
    assert.deepEqual(short.json(), {
      detail: [{ type: 'string_too_short', loc: ['path', 'project_id'], msg: 'String should have at least 36 characters', input: 'abc', ctx: { min_length: 36 } }],
    });
    const long = await api.get(`/v1/projects/${ACME.projects.beta.id}0`, 'admin');
    assert.equal(long.statusCode, 422);
    assert.deepEqual(long.json(), {
      detail: [
        { type: 'string_too_long', loc: ['path', 'project_id'], msg: 'String should have at most 36 characters', input: `${ACME.projects.beta.id}0`, ctx: { max_length: 36 } },
      ],
    });
  });

  it('authentication comes first: no token is 401 even with a bad parameter', async () => {
    for (const url of ['/v1/projects', '/v1/projects/abc']) {
      const res = await api.get(url, null);
      assert.equal(res.statusCode, 401);
      assert.deepEqual(res.json(), { detail: 'Not authenticated' });
      assert.equal(res.headers['www-authenticate'], 'Bearer');
      api.openapi.assertResponse(url === '/v1/projects' ? LIST : ONE, 401, res.json());
    }
  });

  it('a token without the read scope is 403 insufficient_scope', async () => {
    const writeOnly = await obtainToken(api.app, USERS.admin.clientId, USERS.admin.clientSecret, 'enterprise-api-access/write');
    for (const [url, op] of [['/v1/projects', LIST], [`/v1/projects/${ACME.projects.zeta.id}`, ONE]] as const) {
      const res = await api.app.inject({ url, headers: { authorization: `Bearer ${writeOnly}` } });
      assert.equal(res.statusCode, 403);
      assert.match(String(res.headers['www-authenticate']), /error="insufficient_scope", scope="enterprise-api-access\/read"/);
      api.openapi.assertResponse(op, 403, res.json());
    }
  });

  it('an invalid token is 401 invalid_token', async () => {
    const res = await api.app.inject({ url: '/v1/projects', headers: { authorization: 'Bearer not.a.token' } });
    assert.equal(res.statusCode, 401);
    assert.match(String(res.headers['www-authenticate']), /error="invalid_token"/);
    api.openapi.assertResponse(LIST, 401, res.json());
  });
});
