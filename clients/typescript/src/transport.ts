/**
 * Every request of the client goes through here: base URL and query, the bearer token (refreshed once
 * when the server calls it invalid), a timeout per attempt, retries of 429, 503 and lost connections
 * with backoff and jitter honouring `Retry-After`, and the mapping of failures to error classes.
 * fetch only: runs on Node 20 and in browsers.
 */
import { CertdeskConnectionError, CertdeskError, CertdeskTimeoutError, errorFromResponse } from './errors.js';
import { parseRetryAfter, retryDelayMs, type RetryPolicy } from './retry.js';
import type { TokenCache } from './token.js';

export type QueryValue = string | number | boolean | null | undefined;

export interface Request {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** A path under the base URL (`/v1/orders`), or an absolute URL (a presigned upload URL). */
  path: string;
  query?: Record<string, QueryValue>;
  json?: unknown;
  /** Any other body (form data, bytes); must be re-sendable (FormData, Blob, string, bytes). */
  body?: BodyInit;
  headers?: Record<string, string>;
  /** Send the access token (default true). */
  auth?: boolean;
  /**
   * Kept across every retry of this request. A write carrying one may be retried after a lost
   * connection, since the server replays the first answer instead of acting twice.
   */
  idempotencyKey?: string;
  /** Retry a 409 too: for writes whose only 409 is "the same Idempotency-Key is still running". */
  retryConflict?: boolean;
  /** The body of a success as text, not parsed (error bodies are parsed as always). */
  raw?: boolean;
  /** The body of a success as a Blob (a file's bytes; error bodies are parsed as always). */
  binary?: boolean;
  signal?: AbortSignal;
}

export interface Response<T> {
  status: number;
  body: T;
  headers: Headers;
  requestId: string | null;
}

export interface TransportOptions {
  baseUrl: string;
  fetch: typeof fetch;
  tokens: TokenCache | null;
  timeoutMs: number;
  retry: RetryPolicy;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  now: () => number;
  random: () => number;
  headers: Record<string, string>;
  /** Called before each retry (for logs and progress). */
  onRetry?: (info: { attempt: number; delayMs: number; reason: string; method: string; url: string }) => void;
}

const RETRIED_STATUSES = new Set([429, 503]);

export function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

async function readBody(res: globalThis.Response): Promise<unknown> {
  if (res.status === 204) return null;
  const text = await res.text();
  if (text === '') return null;
  const type = res.headers.get('content-type') ?? '';
  if (type.includes('json')) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

export class Transport {
  constructor(private readonly options: TransportOptions) {}

  url(path: string, query: Record<string, QueryValue> = {}): string {
    const url = /^https?:\/\//.test(path) ? new URL(path) : new URL(this.options.baseUrl.replace(/\/+$/, '') + path);
    for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== null) url.searchParams.set(key, String(value));
    return url.toString();
  }

  async request<T>(req: Request): Promise<Response<T>> {
    const { retry } = this.options;
    const url = this.url(req.path, req.query);
    const auth = req.auth ?? true;
    // A lost connection leaves unknown whether a write happened: only safe to repeat with a key.
    const repeatable = req.method === 'GET' || req.method === 'PUT' || req.method === 'DELETE' || req.idempotencyKey !== undefined || !auth;
    let refreshedToken = false;
    for (let attempt = 0; ; attempt++) {
      let token: string | null = null;
      if (auth && this.options.tokens) token = await this.options.tokens.get();
      let failure: CertdeskError;
      try {
        const { res, body } = await this.send(req, url, token);
        const requestId = res.headers.get('x-request-id');
        if (res.ok) return { status: res.status, body: body as T, headers: res.headers, requestId };
        const retryAfterMs = parseRetryAfter(res.headers.get('retry-after'), this.options.now());
        failure = errorFromResponse(res.status, body, requestId, retryAfterMs);
        // The server refused our token (expired early, key rotated, clock skew): one new token, at once.
        if (res.status === 401 && token && !refreshedToken && /invalid_token/.test(res.headers.get('www-authenticate') ?? '')) {
          refreshedToken = true;
          this.options.tokens!.invalidate(token);
          attempt--;
          continue;
        }
        const retryable = RETRIED_STATUSES.has(res.status) || (res.status === 409 && req.retryConflict === true);
        if (!retryable) throw failure;
      } catch (error) {
        if (error instanceof CertdeskError && !(error instanceof CertdeskConnectionError)) throw error;
        if (req.signal?.aborted) throw error;
        failure = error instanceof CertdeskConnectionError ? error : new CertdeskConnectionError(`connection failed: ${(error as Error).message}`, 0, null, null);
        if (!repeatable) throw failure;
      }
      if (attempt >= retry.maxRetries) throw failure;
      const delayMs = retryDelayMs(retry, attempt + 1, failure.retryAfterMs, this.options.random);
      this.options.onRetry?.({ attempt: attempt + 1, delayMs, reason: failure.message, method: req.method, url });
      await this.options.sleep(delayMs, req.signal);
    }
  }

  /** One attempt, with its own timeout; a timeout becomes CertdeskTimeoutError. */
  private async send(req: Request, url: string, token: string | null): Promise<{ res: globalThis.Response; body: unknown }> {
    const headers: Record<string, string> = { accept: req.binary ? '*/*' : 'application/json', ...this.options.headers, ...req.headers };
    if (token) headers.authorization = `Bearer ${token}`;
    if (req.idempotencyKey !== undefined) headers['idempotency-key'] = req.idempotencyKey;
    let body = req.body;
    if (req.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(req.json);
    }
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(new CertdeskTimeoutError(`no answer within ${this.options.timeoutMs} ms: ${req.method} ${url}`, 0, null, null)), this.options.timeoutMs);
    const signal = req.signal ? AbortSignal.any([req.signal, timeout.signal]) : timeout.signal;
    try {
      const res = await this.options.fetch(url, { method: req.method, headers, body: body ?? null, signal });
      // Read inside the timeout: a server that stops half-way through a body is a lost connection too.
      return { res, body: res.ok && req.binary ? await res.blob() : req.raw && res.ok ? await res.text() : await readBody(res) };
    } catch (error) {
      if (timeout.signal.aborted && !req.signal?.aborted) throw timeout.signal.reason;
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }
}
