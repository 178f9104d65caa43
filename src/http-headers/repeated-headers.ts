/**
 * A request carrying two `Authorization` headers is refused (400): Node keeps only the first, so a proxy
 * that reads the last one and this service would act on different credentials. The raw header list is
 * the only place the repetition shows.
 */
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../domain/errors.js';

/** Headers that must appear at most once. */
const SINGLE_HEADERS = ['authorization'] as const;

/** 400 `{"detail": "The Authorization header must not be repeated"}` (the token endpoint: invalid_request). */
export class RepeatedHeaderError extends ApiError {
  override name = 'RepeatedHeaderError';
  constructor(readonly header: string) {
    super(400, 'errors.duplicate_header', { vars: { name: header } });
  }
}

/** The display name of the first single-valued header that `rawHeaders` repeats, or null. */
export function repeatedSingleHeader(rawHeaders: readonly string[]): string | null {
  const seen = new Set<string>();
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    if (!(SINGLE_HEADERS as readonly string[]).includes(name)) continue;
    if (seen.has(name)) return name === 'authorization' ? 'Authorization' : name;
    seen.add(name);
  }
  return null;
}

/** Refuses, before anything else runs, a request that repeats a single-valued header. */
export function rejectRepeatedHeaders(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    const repeated = repeatedSingleHeader(request.raw.rawHeaders);
    done(repeated ? new RepeatedHeaderError(repeated) : undefined);
  });
}
