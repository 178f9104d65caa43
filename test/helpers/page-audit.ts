/**
 * Checks a served HTML page against the strict Content-Security-Policy the web application promises:
 * the policy allows scripts from this origin only (no 'unsafe-inline', 'unsafe-eval', other origins),
 * and the page holds no code the policy would block: no inline `<script>`, no `on*` event-handler
 * attribute, no `javascript:` URL, and (where the policy's style-src has no 'unsafe-inline') no `<style>`
 * element or `style` attribute. buildTestApp runs it on every HTML page an in-process test receives.
 *
 * The pages come from our own `html` templates (every attribute quoted, text escaped), so a small
 * tokenizer of start tags is enough; escaped text (`&lt;img onerror=...&gt;`) is text, never a tag.
 */
import assert from 'node:assert/strict';

/** The start tags of a document: name and attributes (values unquoted, entities left as they are). */
function* startTags(html: string): Generator<{ name: string; attrs: Map<string, string>; end: number }> {
  const TAG = /<([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[^\s"'>/=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+))?)*)\s*\/?>/g;
  const ATTR = /([^\s"'>/=]+)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s"'=<>`]+))?/g;
  for (const tag of html.matchAll(TAG)) {
    const attrs = new Map<string, string>();
    for (const a of (tag[2] ?? '').matchAll(ATTR)) {
      const raw = a[2] ?? '';
      attrs.set(a[1]!.toLowerCase(), /^["']/.test(raw) ? raw.slice(1, -1) : raw);
    }
    yield { name: tag[1]!.toLowerCase(), attrs, end: tag.index + tag[0].length };
  }
}

/** What a strict policy would block in `html` (empty: nothing). */
export function inlineCodeProblems(html: string, options: { styles: boolean } = { styles: true }): string[] {
  const problems: string[] = [];
  for (const { name, attrs, end } of startTags(html)) {
    if (name === 'script') {
      const src = attrs.get('src');
      const body = html.slice(end, html.indexOf('</script', end));
      if (src === undefined) problems.push('an inline <script> element');
      else if (/^([a-z][a-z0-9+.-]*:|\/\/)/i.test(src.trim())) problems.push(`a script from elsewhere: ${src}`);
      if (body.trim() !== '') problems.push('a <script> element with code inside');
    }
    if (options.styles && name === 'style') problems.push('an inline <style> element');
    for (const [attr, value] of attrs) {
      if (attr.startsWith('on')) problems.push(`an inline event handler ${attr} on <${name}>`);
      if (options.styles && attr === 'style') problems.push(`a style attribute on <${name}>`);
      if (/^\s*javascript:/i.test(value.replace(/&#0*58;|&colon;/gi, ':'))) problems.push(`a javascript: URL in ${attr} of <${name}>`);
    }
  }
  return problems;
}

/** The sources a policy's directive allows (after the CSP fallbacks), or null when nothing governs it. */
export function directive(csp: string, name: string): string[] | null {
  const parts = new Map(
    csp
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map((d) => [d[0]!.toLowerCase(), d.slice(1)] as const),
  );
  // CSP 3 fallbacks: script-src-attr → script-src → default-src.
  const order = [name, ...(/-(attr|elem)$/.test(name) ? [name.replace(/-(attr|elem)$/, '')] : []), 'default-src'];
  for (const candidate of order) {
    const sources = parts.get(candidate);
    if (sources) return sources;
  }
  return null;
}

/**
 * Why `csp` is not a strict script policy (empty: it is). `wasm`: the page may compile WebAssembly
 * ('wasm-unsafe-eval': no JavaScript eval), which the verify pages alone need for the C2PA reader.
 */
export function scriptPolicyProblems(csp: string | undefined, options: { wasm: boolean } = { wasm: false }): string[] {
  if (!csp) return ['no Content-Security-Policy header'];
  const scripts = directive(csp, 'script-src');
  if (!scripts) return ['no script-src (nor default-src) directive'];
  const allowed = new Set(["'self'", "'none'", ...(options.wasm ? ["'wasm-unsafe-eval'"] : [])]);
  return scripts.filter((s) => !allowed.has(s)).map((s) => `script-src allows ${s}`);
}

/** Asserts a response, when it is an HTML page, against its policy and the strict script rules. */
export function auditHtmlResponse(res: { headers: Record<string, unknown>; body: string }, where: string): void {
  if (!String(res.headers['content-type'] ?? '').startsWith('text/html')) return;
  const csp = res.headers['content-security-policy'] as string | undefined;
  const styles = !(directive(csp ?? '', 'style-src') ?? []).includes("'unsafe-inline'");
  // `where` names the page ("200 /verify/…" or "/verify/…"): the verify pages alone may compile WebAssembly.
  const wasm = /(^|\s)\/verify(\/[^/?\s]*)?(\?|\s|$)/.test(where);
  const problems = [...scriptPolicyProblems(csp, { wasm }), ...inlineCodeProblems(res.body, { styles })];
  assert.deepEqual(problems, [], `${where}: the page breaks the strict CSP`);
}
