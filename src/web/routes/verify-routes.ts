/**
 * `/verify/{certificate_id}`: the public certificate page (no sign-in), read through the certificates
 * domain; `/verify`: the check of a file's Content Credentials. Both may compile the C2PA reader's
 * WebAssembly (their CSP alone has 'wasm-unsafe-eval').
 */
import type { FastifyPluginAsync } from 'fastify';
import { decodeJwt } from 'jose';
import { findPublicCertificate, type CertificateClaims } from '../../domain/certificates/index.js';
import { sendNotFound, sendPage } from '../respond.js';
import { allowingWebAssembly } from '../security-headers.js';
import { verifyFilePage } from '../views/verify-file-page.js';
import { verifyPage } from '../views/verify-page.js';
import type { WebDeps } from '../web-deps.js';

export function verifyRoutes(deps: WebDeps): FastifyPluginAsync {
  const base = deps.config.publicBaseUrl.replace(/\/+$/, '');
  const issuer = deps.config.issuerUrl;
  return async (app) => {
    app.addHook('onRequest', async (_req, reply) => {
      reply.header('Content-Security-Policy', allowingWebAssembly(String(reply.getHeader('Content-Security-Policy') ?? '')));
    });

    app.get('/verify', async (req, reply) => sendPage(reply, verifyFilePage(req.web, { issuer })));

    app.get<{ Params: { certificate_id: string } }>('/verify/:certificate_id', async (req, reply) => {
      const row = await findPublicCertificate(deps.db, req.params.certificate_id);
      if (!row) return sendNotFound(req.web, reply);
      // The service's own stored JWS: decoded for display only; the browser verifies it against the JWKS.
      const claims = decodeJwt(row.jws) as unknown as CertificateClaims;
      return sendPage(
        reply,
        verifyPage(req.web, {
          row,
          claims,
          issuer,
          jwksUrl: `${issuer.replace(/\/+$/, '')}/.well-known/jwks.json`,
          badgeUrl: `${base}/verify/${row.certificate_id}/badge.svg`,
        }),
      );
    });
  };
}
