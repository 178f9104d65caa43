/**
 * What is published is what is tested: the package is packed (`npm pack -w @certdesk/client`), unpacked
 * into the node_modules of a temporary project (its dependencies, jose, commander, @noble/hashes and @contentauth/c2pa-wasm, linked from
 * this repository's install: no registry access in tests), and used from there, by `import`, by
 * `require` and through its bin, against the served application.
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { databaseTargets } from '../helpers/database.js';
import { ACME_ORDER_COUNT, USERS } from '../helpers/fixtures.js';
import { pngBytes } from '../helpers/images.js';
import { startServedApi, type ServedApi } from './served-api.js';

const [target] = databaseTargets(); // the package, not the database, is under test here

describe('the packed @certdesk/client', () => {
  let served: ServedApi;
  let project: string;
  before(async () => {
    served = await startServedApi(target!);
    project = mkdtempSync(path.join(os.tmpdir(), 'certdesk-client-packed-'));
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    execFileSync(npm, ['pack', '-w', '@certdesk/client', '--pack-destination', project], { stdio: 'ignore' });
    const tarball = readdirSync(project).find((f) => f.endsWith('.tgz'))!;
    const installed = path.join(project, 'node_modules', '@certdesk', 'client');
    mkdirSync(installed, { recursive: true });
    execFileSync('tar', ['-xzf', path.join(project, tarball), '-C', installed, '--strip-components=1']);
    for (const scope of ['@noble', '@contentauth']) mkdirSync(path.join(project, 'node_modules', scope), { recursive: true });
    for (const dep of ['jose', 'commander', '@noble/hashes', '@contentauth/c2pa-wasm']) symlinkSync(path.resolve('node_modules', dep), path.join(project, 'node_modules', dep), 'dir');
    writeFileSync(path.join(project, 'package.json'), '{ "name": "consumer", "private": true, "type": "module" }\n');
  });
  after(async () => {
    await served?.close();
    if (project) rmSync(project, { recursive: true, force: true });
  });

  /** Runs node asynchronously: the served application lives in this process and must keep answering. */
  function run(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      execFile(process.execPath, args, { cwd: project, encoding: 'utf8', env }, (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
  }

  function node(file: string, source: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
    writeFileSync(path.join(project, file), source);
    return run([file], { PATH: process.env.PATH ?? '' });
  }

  const options = (): string => JSON.stringify({ baseUrl: served.serverUrl, clientId: USERS.admin.clientId, clientSecret: USERS.admin.clientSecret });

  it('works through import (ESM)', async () => {
    const r = await node('esm.mjs', `import { Certdesk, NotFoundError } from '@certdesk/client';
const client = new Certdesk(${options()});
let n = 0;
for await (const o of client.orders.list({ projectId: 'All Projects', limit: 15 })) n++;
const missing = await client.orders.get('nope').catch((e) => e);
console.log(JSON.stringify({ n, notFound: missing instanceof NotFoundError }));
`);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { n: ACME_ORDER_COUNT, notFound: true });
  });

  it('works through require (CommonJS), verifyCertificate included', async () => {
    const r = await node('cjs.cjs', `const { Certdesk, verifyCertificate } = require('@certdesk/client');
(async () => {
  const client = new Certdesk(${options()});
  const projects = await client.projects.list();
  const refused = await verifyCertificate('a.b.c', await client.certificates.jwks()).then(() => false, () => true);
  console.log(JSON.stringify({ projects: projects.length, refused }));
})().catch((e) => { console.error(e); process.exit(1); });
`);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { projects: 3, refused: true });
  });

  it('ships the certdesk-client bin', async () => {
    const bin = path.join(project, 'node_modules', '@certdesk', 'client', 'dist', 'cli', 'certdesk-client.js');
    const r = await run([bin, 'orders', 'get', 'acme-0001', '--json'], {
      PATH: process.env.PATH ?? '',
      CERTDESK_BASE_URL: served.serverUrl,
      CERTDESK_CLIENT_ID: USERS.admin.clientId,
      CERTDESK_CLIENT_SECRET: USERS.admin.clientSecret,
    });
    assert.equal(r.code, 0, r.stderr);
    assert.equal((JSON.parse(r.stdout) as { order_id: string }).order_id, 'acme-0001');
  });

  it("the bin's verify loads the C2PA reader from the installed package", async () => {
    const bin = path.join(project, 'node_modules', '@certdesk', 'client', 'dist', 'cli', 'certdesk-client.js');
    writeFileSync(path.join(project, 'plain.png'), pngBytes(6, 6));
    writeFileSync(path.join(project, 'anchors.pem'), '');
    const r = await run([bin, 'verify', 'plain.png', '--trust-anchors', 'anchors.pem', '--json'], { PATH: process.env.PATH ?? '', CERTDESK_BASE_URL: served.serverUrl });
    assert.equal(r.code, 9, r.stderr);
    assert.equal((JSON.parse(r.stdout) as { content_credentials: string }).content_credentials, 'none');
    assert.match(r.stderr, /^certdesk-client: plain\.png holds no Content Credentials/m);
  });
});
