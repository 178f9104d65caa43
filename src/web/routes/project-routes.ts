/** GET /projects: the same projects, members and detection configuration as GET /v1/projects. */
import type { FastifyPluginAsync } from 'fastify';
import { listProjects } from '../../domain/projects/index.js';
import { requireSession, sessionOf } from '../guards.js';
import { sendPage } from '../respond.js';
import { projectsPage } from '../views/projects-page.js';
import { principalOf } from '../web-context.js';
import type { WebDeps } from '../web-deps.js';

export function projectRoutes(deps: WebDeps): FastifyPluginAsync {
  return async (app) => {
    app.addHook('preHandler', requireSession);
    app.get('/projects', async (req, reply) => {
      const projects = await listProjects(deps.db, principalOf(sessionOf(req)));
      return sendPage(reply, projectsPage(req.web, projects));
    });
  };
}
