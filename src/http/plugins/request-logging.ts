/**
 * How the server logs. Production and test write pino's JSON (one object a line, for log collectors).
 * Development writes one readable line per request through pino-pretty instead of Fastify's two JSON
 * lines ("incoming request" and "request completed"), so the terminal stays legible beside the banner.
 *
 * Redaction is pino's in both modes: it runs before the line reaches any stream, so the pretty output
 * never sees an Authorization header, a cookie or a Set-Cookie either.
 */
import type { FastifyInstance } from 'fastify';
import type { DestinationStream, LoggerOptions } from 'pino';
import { createRequire } from 'node:module';
import type { Environment } from '../../config.js';
import { serializeRequest } from '../logging/request-serializer.js';

/** Request headers that must never reach a log line. */
export const REDACTED_HEADERS = ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'];

export interface LoggingSettings {
  env: Environment;
  logLevel: string;
}

/** The readable mode: development only (production and tests keep JSON that machines parse). */
export const readableLogs = (settings: LoggingSettings): boolean => settings.env === 'development' && settings.logLevel !== 'silent';

/** pino's options for these settings, or null when nothing is logged. */
export function loggerSettings(settings: LoggingSettings): LoggerOptions | null {
  if (settings.logLevel === 'silent') return null;
  // The request serializer redacts credentials in query strings (JSON mode logs the URL).
  return { level: settings.logLevel, redact: { paths: REDACTED_HEADERS, censor: '[redacted]' }, serializers: { req: serializeRequest } };
}

/** The readable mode's destination: one line per entry, written synchronously. */
export function prettyLogStream(): DestinationStream {
  // Loaded here, in development only: production and tests never carry it (CommonJS: loads synchronously).
  const pretty = createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty');
  return pretty({
    singleLine: true,
    // Synchronous writes keep log lines and the banner (written with process.stdout) in order.
    sync: true,
    colorize: Boolean(process.stdout.isTTY),
    translateTime: 'SYS:HH:MM:ss',
    ignore: 'pid,hostname',
  });
}

/**
 * In the readable mode, one line when a response is sent: method, path, status and time. The query string
 * is left out: it may carry a secret (a code, a token) that must not reach a terminal or a log file.
 */
export function installRequestLine(app: FastifyInstance, settings: LoggingSettings): void {
  if (!readableLogs(settings)) return;
  app.addHook('onResponse', async (req, reply) => {
    const path = req.url.split('?')[0];
    req.log.info(`${req.method} ${path} ${reply.statusCode} ${reply.elapsedTime.toFixed(1)} ms`);
  });
}
