/** docs/benchmarks.md, shared by the benchmark scripts: each one owns one `## ...` section of it. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const FILE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'benchmarks.md');

/**
 * Replaces the section that starts with the line `heading` (up to the next `## `), or appends it, and
 * leaves the other scripts' sections as they are. `section` includes its heading line.
 */
export function writeBenchmarkSection(heading: string, section: string): void {
  const current = existsSync(FILE) ? readFileSync(FILE, 'utf8') : '# Benchmarks\n';
  const escaped = heading.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const start = current.search(new RegExp(`^${escaped}\\s*$`, 'm'));
  const body = `${section.trimEnd()}\n`;
  let next: string;
  if (start === -1) {
    next = `${current.trimEnd()}\n\n${body}`;
  } else {
    const rest = current.slice(start + 1);
    const end = rest.search(/^## /m);
    next = current.slice(0, start) + body + (end === -1 ? '' : `\n${rest.slice(end)}`);
  }
  writeFileSync(FILE, next);
}
