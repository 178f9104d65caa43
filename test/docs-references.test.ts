/**
 * The README and docs/ stand alone: no reference to files outside the repository, and every relative
 * link points at a file that exists.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

const pages = ['README.md', ...readdirSync('docs').filter((f) => f.endsWith('.md')).map((f) => path.join('docs', f))];

test('README and docs cite only files inside the repository', () => {
  for (const page of pages) {
    const text = readFileSync(page, 'utf8');
    assert.doesNotMatch(text, /DECISIONS(\.md)?\b|\.\.\/shared|service-interface\.md/, page);
    for (const [, target] of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
      if (/^[a-z]+:/.test(target!)) continue;
      assert.ok(existsSync(path.join(path.dirname(page), target!)), `${page} links to missing ${target}`);
    }
  }
});

test('docs/seed-format.md exists and shows the example that the CLI tests load', () => {
  const text = readFileSync('docs/seed-format.md', 'utf8');
  assert.match(text, /examples\/seed-small\.json/);
  JSON.parse(readFileSync('docs/examples/seed-small.json', 'utf8'));
});
