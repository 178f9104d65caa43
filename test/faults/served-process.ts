/**
 * The real `certdesk serve` (bin/certdesk, the built dist/) as a child process, its log lines kept for
 * assertions, and a plain HTTP/1.1 client over keep-alive connections to drive it from outside.
 *
 * @example
 * const server = await ServedProcess.start({ DATABASE_URL: url });
 * const res = await request(server.agent(4), { path: '/readyz' });
 * await server.stop();
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { packageRoot } from '../../src/paths.js';

export interface LogLine {
  level?: number;
  msg?: string;
  [key: string]: unknown;
}

export class ServedProcess {
  readonly logs: LogLine[] = [];
  /** stdout/stderr lines that are not JSON log lines (the banner, a crash's stack). */
  readonly text: string[] = [];
  private readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
  private readonly agents: http.Agent[] = [];

  private constructor(
    readonly child: ChildProcess,
    readonly baseUrl: URL,
    exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>,
    collected: { logs: LogLine[]; text: string[] },
  ) {
    this.exited = exited;
    this.logs = collected.logs;
    this.text = collected.text;
  }

  /** Starts `certdesk serve` on a free port with `env` added; resolves once it listens. */
  static async start(env: Record<string, string>, args: string[] = []): Promise<ServedProcess> {
    const child = spawn(process.execPath, [path.join(packageRoot, 'bin', 'certdesk'), 'serve', ...args], {
      env: { ...process.env, CERTDESK_ENV: 'test', HOST: '127.0.0.1', PORT: '0', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const collected = { logs: [] as LogLine[], text: [] as string[] };
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })),
    );
    let listening: (url: URL) => void;
    const address = new Promise<URL>((resolve) => (listening = resolve));
    for (const stream of [child.stdout!, child.stderr!]) {
      createInterface({ input: stream }).on('line', (line) => {
        try {
          collected.logs.push(JSON.parse(line) as LogLine);
        } catch {
          collected.text.push(line);
          const m = /^certdesk serving on (http:\/\/\S+)/.exec(line);
          if (m) listening(new URL(m[1]!));
        }
      });
    }
    const started = await Promise.race([
      address,
      exited.then((e) => new Error(`serve exited (${e.code ?? e.signal}) before listening:\n${collected.text.join('\n')}`)),
      // Generous: on a loaded 2-core machine a start has taken two minutes; the wait ends at the banner.
      new Promise<Error>((resolve) => setTimeout(() => resolve(new Error('serve did not listen within 240 s')), 240_000).unref()),
    ]);
    if (started instanceof Error) {
      child.kill('SIGKILL');
      throw started;
    }
    return new ServedProcess(child, started, exited, collected);
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** A keep-alive agent with at most `sockets` connections (closed by stop()). */
  agent(sockets: number): http.Agent {
    const agent = new http.Agent({ keepAlive: true, maxSockets: sockets });
    this.agents.push(agent);
    return agent;
  }

  waitForExit(): Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }> {
    return this.exited;
  }

  /** Log lines whose message is `msg`. */
  logged(msg: string): LogLine[] {
    return this.logs.filter((l) => l.msg === msg);
  }

  /** SIGTERM, then SIGKILL if it has not exited within `ms`. Never throws. */
  async stop(ms = 15_000): Promise<void> {
    for (const agent of this.agents) agent.destroy();
    if (!this.alive) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), ms);
    await this.exited;
    clearTimeout(timer);
  }
}

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface RequestOptions {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  /** The body, or its two halves, the second sent once `release` resolves (a slow upload). */
  body?: string | { first: string; second: string; release: Promise<unknown> };
  timeoutMs?: number;
  /**
   * Called when the server answers `100 Continue` (send the header `expect: 100-continue`): it has read
   * the request head and the request is in flight there, an event rather than a guess.
   */
  onContinue?: () => void;
}

/** One HTTP request through `agent`; rejects on a network error (reset, refused) or the timeout. */
export function request(base: URL, agent: http.Agent | false, options: RequestOptions): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const body = options.body;
    const parts = body === undefined ? [] : typeof body === 'string' ? [body] : [body.first, body.second];
    const length = parts.reduce((n, p) => n + Buffer.byteLength(p), 0);
    const req = http.request(
      {
        host: base.hostname,
        port: base.port,
        method: options.method ?? 'GET',
        path: options.path,
        agent,
        headers: { ...(parts.length > 0 ? { 'content-length': String(length) } : {}), ...options.headers },
        timeout: options.timeoutMs ?? 20_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    if (options.onContinue) req.once('continue', options.onContinue);
    req.on('timeout', () => req.destroy(new Error('request timed out')));
    req.on('error', reject);
    if (typeof body === 'object') {
      req.write(body.first);
      void body.release.then(() => req.end(body.second));
    } else {
      req.end(body);
    }
  });
}

/** Signs in through the real form; returns the Cookie header of the session. */
export async function signInCookie(base: URL, email: string, password: string): Promise<string> {
  const page = await request(base, false, { path: '/sign-in' });
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1];
  const cookies = (page.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]!);
  if (!csrf) throw new Error(`no CSRF field on the sign-in page (${page.status})`);
  const res = await request(base, false, {
    method: 'POST',
    path: '/sign-in',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookies.join('; ') },
    body: new URLSearchParams({ _csrf: csrf, email, password }).toString(),
  });
  if (res.status !== 303) throw new Error(`sign-in failed: ${res.status}`);
  const session = (res.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]!).filter((c) => !c.endsWith('='));
  return session.join('; ');
}

/** Basic credentials of a client (RFC 6749 2.3.1 form-encoding of id and secret). */
export function basic(clientId: string, secret: string): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`;
}
