import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Type } from '@sinclair/typebox';
import { Project } from '../../contract/schemas.js';
import { referencingForm } from './components.js';
import { hoistNamedSchemas } from './hoist-named-schemas.js';
import { fastapiOperationId } from './operation-id.js';
import { patternToRegex, RouteTable } from '../plugins/method-not-allowed.js';

describe('OpenAPI helpers', () => {
  it('fastapiOperationId follows FastAPI', () => {
    assert.equal(fastapiOperationId('get_orders', '/v1/orders', 'GET'), 'get_orders_v1_orders_get');
    assert.equal(fastapiOperationId('get_project', '/v1/projects/:project_id', 'GET'), 'get_project_v1_projects__project_id__get');
    assert.equal(
      fastapiOperationId('get_organization_members', '/v1/organizations/{organization_id}/members', 'get'),
      'get_organization_members_v1_organizations__organization_id__members_get',
    );
  });

  it('referencingForm keeps the root $id and references nested components', () => {
    const form = referencingForm(Project) as { $id: string; properties: Record<string, unknown> };
    assert.equal(form.$id, 'Project');
    assert.deepEqual(form.properties.detection_config, { $ref: 'DetectionConfig' });
    assert.deepEqual(form.properties.members, { type: 'array', items: { $ref: 'ProjectMember' } });
  });

  it('hoistNamedSchemas turns inline named schemas into components', () => {
    const Inner = Type.Object({ a: Type.String() }, { $id: 'Inner' });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const doc: any = hoistNamedSchemas({
      paths: { '/x': { get: { responses: { 200: { content: { 'application/json': { schema: Type.Array(Inner) } } } } } } },
      components: { schemas: { Outer: { $id: 'Outer', type: 'object', properties: { inner: Inner, bare: { $ref: 'Inner' } } } } },
    });
    assert.deepEqual(doc.components.schemas.Outer, { type: 'object', properties: { inner: { $ref: '#/components/schemas/Inner' }, bare: { $ref: '#/components/schemas/Inner' } } });
    assert.deepEqual(doc.paths['/x'].get.responses[200].content['application/json'].schema, { type: 'array', items: { $ref: '#/components/schemas/Inner' } });
    assert.deepEqual(doc.components.schemas.Inner, { type: 'object', required: ['a'], properties: { a: { type: 'string' } } });
  });
});

describe('route table (405)', () => {
  it('matches concrete paths against route patterns', () => {
    assert.ok(patternToRegex('/v1/projects/:project_id').test('/v1/projects/abc'));
    assert.ok(!patternToRegex('/v1/projects/:project_id').test('/v1/projects/abc/def'));
    assert.ok(patternToRegex('/docs/static/*').test('/docs/static/a/b.js'));
    assert.ok(patternToRegex('/a.b').test('/a.b') && !patternToRegex('/a.b').test('/aXb'));
  });

  it('lists the allowed methods of a path', () => {
    const table = new RouteTable();
    table.add('/v1/projects', ['GET', 'HEAD']);
    table.add('/v1/projects/:id', 'GET');
    table.add('/v1/projects/:id', 'DELETE');
    assert.deepEqual(table.allowedMethods('/v1/projects'), ['GET', 'HEAD']);
    assert.deepEqual(table.allowedMethods('/v1/projects/1'), ['DELETE', 'GET']);
    assert.deepEqual(table.allowedMethods('/v1/nothing'), []);
  });
});
