/**
 * Fastify answers 404 for a known path requested with the wrong method; HTTP says 405 with an `Allow`
 * header (RFC 9110 15.5.6). This keeps a table of every registered route pattern and lets the 404
 * handler ask which methods a concrete path supports.
 */
import type { FastifyInstance } from 'fastify';

interface RoutePattern {
  regex: RegExp;
  methods: Set<string>;
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** find-my-way pattern (`/v1/projects/:project_id`, `/static/*`) → an anchored regular expression. */
export function patternToRegex(url: string): RegExp {
  let out = '';
  for (let i = 0; i < url.length; ) {
    const ch = url[i]!;
    if (ch === ':' && url[i + 1] === ':') {
      out += ':'; // "::" is a literal colon
      i += 2;
    } else if (ch === ':') {
      const m = /^:[A-Za-z0-9_-]+(\(([^)]*)\))?/.exec(url.slice(i))!;
      out += m[2] ? `(?:${m[2].replace(/^\^/, '').replace(/\$$/, '')})` : '[^/]+';
      i += m[0].length;
    } else if (ch === '*') {
      out += '.*';
      i += 1;
    } else {
      out += escapeRegex(ch);
      i += 1;
    }
  }
  return new RegExp(`^${out}$`);
}

export class RouteTable {
  private readonly patterns = new Map<string, RoutePattern>();

  add(url: string, methods: string | string[]): void {
    let entry = this.patterns.get(url);
    if (!entry) {
      entry = { regex: patternToRegex(url), methods: new Set() };
      this.patterns.set(url, entry);
    }
    for (const m of Array.isArray(methods) ? methods : [methods]) entry.methods.add(m.toUpperCase());
  }

  /** Methods allowed on a concrete path (sorted), empty when no route matches it. */
  allowedMethods(path: string): string[] {
    const methods = new Set<string>();
    for (const { regex, methods: ms } of this.patterns.values()) if (regex.test(path)) ms.forEach((m) => methods.add(m));
    return [...methods].sort();
  }
}

/** Records every route of the application (call before any route is registered). */
export function trackRoutes(app: FastifyInstance): RouteTable {
  const table = new RouteTable();
  app.addHook('onRoute', (route) => table.add(route.url, route.method));
  return table;
}
