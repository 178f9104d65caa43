/**
 * The built server (`certdesk serve`, dist/) serves the browser bundles `npm run build` wrote to
 * dist/web/static, at the URLs its pages link, with their content hash and long caching. Needs a build
 * (`npm test` builds first).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { packageRoot } from '../../src/paths.js';
import { request, ServedProcess } from '../faults/served-process.js';

describe('built browser bundles', { timeout: 300_000 }, () => {
  let dir: string;
  let server: ServedProcess;

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'certdesk-bundles-'));
    server = await ServedProcess.start({ DATA_DIR: dir, MASTER_KEY: 'bundle-test-master-key-0123456789abcdef' });
  });

  after(async () => {
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the sign-in page links dist/web/static/app.js by its content hash, served as built', async () => {
    const page = await request(server.baseUrl, false, { path: '/sign-in' });
    assert.equal(page.status, 200);
    assert.match(String(page.headers['content-security-policy']), /script-src 'self'(;|$)/);
    const srcs = [...page.body.matchAll(/<script src="([^"]+)"/g)].map((m) => m[1]!.replaceAll('&amp;', '&'));
    assert.ok(srcs.some((s) => s.startsWith('/static/app.js?v=')), srcs.join(' '));
    for (const src of srcs) {
      const name = new URL(src, server.baseUrl).pathname.replace('/static/', '');
      const built = readFileSync(path.join(packageRoot, 'dist', 'web', 'static', name));
      assert.equal(new URL(src, server.baseUrl).searchParams.get('v'), createHash('sha256').update(built).digest('hex').slice(0, 12));
      const script = await request(server.baseUrl, false, { path: src });
      assert.equal(script.status, 200);
      assert.match(String(script.headers['content-type']), /^text\/javascript/);
      assert.match(String(script.headers['cache-control']), /immutable/);
      assert.equal(script.body, built.toString('utf8'));
    }
  });
});
