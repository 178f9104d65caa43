/**
 * The web application: server-rendered pages for signed-in members. Mounted by the composition root (src/app/http-server.ts) as one
 * encapsulated plugin, so its hooks (language, session, security headers) and its error page apply to
 * its own routes only, never to the JSON API.
 */
import cookie from '@fastify/cookie';
import { ApiError } from '../domain/errors.js';
import { statusMessageKey } from '../http/plugins/error-handler.js';
import { translate } from '../i18n/index.js';
import type { FastifyPluginAsync } from 'fastify';
import { parseFormBody } from './form-body.js';
import { credentialRoutes } from './routes/credential-routes.js';
import { orderRoutes } from './routes/order-routes.js';
import { organizationRoutes } from './routes/organization-routes.js';
import { projectRoutes } from './routes/project-routes.js';
import { reviewRoutes } from './routes/review-routes.js';
import { signInRoutes } from './routes/sign-in-routes.js';
import { uploadRoutes } from './routes/upload-routes.js';
import { verifyRoutes } from './routes/verify-routes.js';
import { webhookRoutes } from './routes/webhook-routes.js';
import { contentSecurityPolicy, originOf, setSecurityHeaders } from './security-headers.js';
import { readSession } from './session/web-session.js';
import { staticAssetRoutes } from './static-assets.js';
import { isDatabaseUnavailable, OUTAGE_RETRY_AFTER_SECONDS } from '../storage/database-availability.js';
import { sendPage } from './respond.js';
import { refuseUnstorableText } from './refused-text.js';
import { messagePage } from './views/message-page.js';
import { pickLanguage, translatorFor, type WebContext } from './web-context.js';
import type { WebDeps } from './web-deps.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Language, translator and session of a web page request (set by the web plugin). */
    web: WebContext;
  }
}

const FORM_TYPE = 'application/x-www-form-urlencoded';

export const webPlugin: FastifyPluginAsync = async (app) => {
  const { config, database, orders, limiters, oauth } = app.services;
  if (!app.hasRequestDecorator('cookies')) await app.register(cookie);
  if (!app.hasContentTypeParser(FORM_TYPE)) {
    app.addContentTypeParser(FORM_TYPE, { parseAs: 'string', bodyLimit: 64 * 1024 }, (_req, body, done) => {
      done(null, parseFormBody(String(body)));
    });
  }
  const deps: WebDeps = {
    config,
    db: database.db,
    orders,
    signInLimiter: limiters.signIn,
    clientAccess: oauth.clients,
    storage: app.services.storage,
    uploadPresigner: app.services.uploadPresigner,
    uploadLimits: app.services.uploadLimits,
    clock: app.services.clock,
    onJobQueued: () => app.services.jobQueued(),
  };
  // Where presigned upload URLs point (the service itself, or an S3 endpoint): a sample URL tells.
  const uploadOrigin = await app.services.uploadPresigner
    .presignUpload({ key: 'csp-probe', size: 1, contentType: 'application/octet-stream', expiresAt: new Date(Date.now() + 60_000) })
    .then((sample) => originOf(sample.url))
    .catch((err: unknown) => {
      // No credentials yet (S3): the API still starts; the upload page cannot reach the bucket until they are set.
      app.log.warn({ err: { message: (err as Error).message } }, 'cannot presign a sample upload; the upload page will not reach object storage');
      return null;
    });
  const known = (origins: Array<string | null>) => [...new Set(origins.filter((o): o is string => o !== null))];
  const csp = contentSecurityPolicy(known([originOf(config.publicBaseUrl)]), known([originOf(config.publicBaseUrl), uploadOrigin]));

  app.decorateRequest('web', null as unknown as WebContext);
  app.addHook('onRequest', async (_req, reply) => {
    setSecurityHeaders(reply, csp);
    // Pages show an organization's data: never stored by a browser or proxy cache.
    reply.header('Cache-Control', 'no-store');
  });
  app.addHook('preHandler', async (req, reply) => {
    const lang = pickLanguage(req, reply);
    const isAsset = (req.routeOptions.url?.startsWith('/static/') || req.routeOptions.url === '/favicon.ico') ?? false;
    req.web = { lang, t: translatorFor(lang), session: isAsset ? null : await readSession(deps.db, req), url: req.url };
    reply.header('Content-Language', lang);
  });
  app.setErrorHandler(async (err, req, reply) => {
    const lang = req.web?.lang ?? 'en';
    const ctx: WebContext = req.web ?? { lang, t: translatorFor(lang), session: null, url: '/' };
    if (isDatabaseUnavailable(err)) {
      // Logged once per outage by the availability monitor, not once per request.
      reply.header('Retry-After', String(OUTAGE_RETRY_AFTER_SECONDS));
      return sendPage(reply, messagePage(ctx, ctx.t('web.error.unavailable_title'), ctx.t('web.error.unavailable')), 503);
    }
    const status = (err as { statusCode?: number }).statusCode ?? 500;
    if (status < 500) req.log.info({ err }, 'web request refused');
    else req.log.error({ err }, 'web page failed');
    // A page's script sent JSON (review edits, uploads): a malformed or too deeply nested body is refused in JSON.
    if (status >= 400 && status < 500 && /^application\/json\b/i.test(String(req.headers['content-type'] ?? ''))) {
      const key = err instanceof ApiError ? err.messageKey : statusMessageKey(status);
      return reply.code(status).type('application/json; charset=utf-8').send({ detail: translate(lang, key, err instanceof ApiError ? err.vars : {}) });
    }
    const body =
      status === 404
        ? messagePage(ctx, ctx.t('web.error.not_found_title'), ctx.t('web.error.not_found'))
        : messagePage(ctx, ctx.t('web.error.server_title'), ctx.t('web.error.server', { request_id: req.id }));
    // Client errors (a malformed form, a body too large) are shown as the generic page with their status.
    return sendPage(reply, body, status >= 400 && status < 600 ? status : 500);
  });

  // Text that cannot be stored, in any field of any page's request: refused before the handler runs.
  refuseUnstorableText(app);
  await app.register(staticAssetRoutes);
  await app.register(signInRoutes(deps));
  await app.register(orderRoutes(deps));
  await app.register(uploadRoutes(deps));
  await app.register(organizationRoutes(deps));
  await app.register(credentialRoutes(deps));
  await app.register(webhookRoutes(deps));
  await app.register(projectRoutes(deps));
  await app.register(reviewRoutes({ ...deps, issueCertificate: app.services.reviewCertificateIssuer }));
  await app.register(verifyRoutes(deps));
};
