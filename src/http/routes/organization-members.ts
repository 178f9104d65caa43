/**
 * GET /v1/organizations/{organization_id}/members
 * (get_organization_members_v1_organizations__organization_id__members_get).
 */
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyPluginAsync } from 'fastify';
import { OrganizationMembers, SCOPES } from '../../contract/schemas.js';
import { getOrganizationMembers } from '../../domain/members/index.js';
import { requireScope } from '../../oauth/index.js';
import { apiResponses, readSecurity, ref } from '../openapi/route-docs.js';

export const OrganizationPathParams = Type.Object({
  organization_id: Type.String({ description: 'Organization id, as shown on the organization page of the web application.' }),
});

export const organizationMemberRoutes: FastifyPluginAsync = async (app) => {
  const db = app.services.database.db;
  app.get<{ Params: Static<typeof OrganizationPathParams> }>(
    '/v1/organizations/:organization_id/members',
    {
      onRequest: requireScope(SCOPES.read),
      config: { operationName: 'get_organization_members' },
      schema: {
        summary: 'Get Organization Members',
        description: "Returns the e-mail addresses of the organization's members, administrators and others apart, each list sorted.",
        tags: ['organizations'],
        params: OrganizationPathParams,
        security: readSecurity(),
        response: apiResponses(ref(OrganizationMembers)),
      },
    },
    async (request) => getOrganizationMembers(db, request.principal, request.params.organization_id),
  );
};
