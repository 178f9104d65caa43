/**
 * GET /v1/projects (get_projects_v1_projects_get) and GET /v1/projects/{project_id}
 * (get_project_v1_projects__project_id__get). Handlers only translate HTTP to the project service.
 */
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Project, SCOPES } from '../../contract/schemas.js';
import { getProject, listProjects } from '../../domain/projects/index.js';
import { requireScope } from '../../oauth/index.js';
import { apiResponses, readSecurity, ref } from '../openapi/route-docs.js';

export const ProjectPathParams = Type.Object({
  project_id: Type.String({ minLength: 36, maxLength: 36, description: 'Project id (a UUID, 36 characters).' }),
});

export const projectRoutes: FastifyPluginAsync = async (app) => {
  const db = app.services.database.db;

  app.get(
    '/v1/projects',
    {
      onRequest: requireScope(SCOPES.read),
      config: { operationName: 'get_projects' },
      schema: {
        summary: 'Get Projects',
        description: "Returns the organization's projects the caller sees, sorted by name.",
        tags: ['projects'],
        security: readSecurity(),
        response: apiResponses(Type.Array(ref(Project)), { notFound: false }),
      },
    },
    async (request) => listProjects(db, request.principal),
  );

  app.get<{ Params: Static<typeof ProjectPathParams> }>(
    '/v1/projects/:project_id',
    {
      onRequest: requireScope(SCOPES.read),
      config: { operationName: 'get_project' },
      schema: {
        summary: 'Get Project',
        description: 'Returns the details of one project the caller sees.',
        tags: ['projects'],
        params: ProjectPathParams,
        security: readSecurity(),
        response: apiResponses(ref(Project)),
      },
    },
    async (request) => getProject(db, request.principal, request.params.project_id),
  );
};
