/**
 * `certdesk-client` (the built bin, clients/typescript/dist/cli/certdesk-client.js; `npm test` builds
 * first) against the served application: formats, login's credentials file, exit codes and the one line
 * on stderr per failure. Runs as a child process, so standard output is not a terminal (machine formats).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { databaseTargets } from '../helpers/database.js';
import { ACME, ACME_ORDER_COUNT, USERS } from '../helpers/fixtures.js';
import { certifyOrder } from '../helpers/certificates.js';
import { pngBytes } from '../helpers/images.js';
import { startReceiver, type Receiver } from '../webhooks/receiver.js';
import { startServedApi, type ServedApi } from './served-api.js';

const BIN = path.resolve('clients/typescript/dist/cli/certdesk-client.js');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(args: string[], env: Record<string, string>, stdin = ''): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += String(c)));
    child.stderr.on('data', (c) => (stderr += String(c)));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

for (const target of databaseTargets()) {
  describe(`certdesk-client on ${target.name}`, () => {
    let served: ServedApi;
    let receiver: Receiver;
    let configDir: string;
    let env: Record<string, string>;
    before(async () => {
      assert.ok(existsSync(BIN), `${BIN} is missing: run \`npm run build\``);
      receiver = await startReceiver();
      // Deliveries to the test's receiver on 127.0.0.1.
      served = await startServedApi(target, { WEBHOOK_ALLOW_PRIVATE: 'true' });
      configDir = mkdtempSync(path.join(os.tmpdir(), 'certdesk-client-config-'));
      env = { CERTDESK_BASE_URL: served.serverUrl, CERTDESK_CLIENT_ID: USERS.admin.clientId, CERTDESK_CLIENT_SECRET: USERS.admin.clientSecret, CERTDESK_CONFIG_DIR: configDir };
    });
    after(async () => {
      await served?.close();
      await receiver?.close();
      if (configDir) rmSync(configDir, { recursive: true, force: true });
    });

    it('lists every order as NDJSON, JSON and CSV', async () => {
      const ndjson = await run(['orders', 'list', '--all', '--limit', '7'], env);
      assert.equal(ndjson.code, 0, ndjson.stderr);
      assert.equal(ndjson.stderr, '', 'no progress when stderr is not a terminal');
      const lines = ndjson.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as { order_id: string });
      assert.equal(lines.length, ACME_ORDER_COUNT);
      assert.equal(new Set(lines.map((o) => o.order_id)).size, ACME_ORDER_COUNT);

      const firstPage = await run(['orders', 'list', '--limit', '7', '--json'], env);
      assert.equal(firstPage.code, 0, firstPage.stderr);
      assert.equal((JSON.parse(firstPage.stdout) as unknown[]).length, 7, 'without --all: the first page');

      const csv = await run(['orders', 'list', '--all', '--csv', '--project', ACME.projects.zeta.id], env);
      assert.equal(csv.code, 0, csv.stderr);
      const rows = csv.stdout.trimEnd().split('\r\n');
      assert.equal(rows[0], 'order_id,order_state,creation_time,order_title,project,asset_name,email,tags');
      assert.ok(rows.length > 1 && rows.slice(1).every((r) => r.includes(',Zeta,')), csv.stdout);
    });

    it('shows an order, its history, projects and members', async () => {
      const order = await run(['orders', 'get', 'acme-0001'], env);
      assert.equal(order.code, 0, order.stderr);
      assert.equal((JSON.parse(order.stdout) as { order_id: string }).order_id, 'acme-0001');
      const history = await run(['orders', 'history', 'acme-0001', '--json'], env);
      assert.equal(history.code, 0, history.stderr);
      assert.ok(Array.isArray(JSON.parse(history.stdout)));
      const projects = await run(['projects', 'list', '--ndjson'], env);
      assert.equal(projects.code, 0, projects.stderr);
      assert.equal(projects.stdout.trimEnd().split('\n').length, 3);
      const members = await run(['members', ACME.id, '--json'], env);
      assert.equal(members.code, 0, members.stderr);
      assert.ok((JSON.parse(members.stdout) as { org_admins: string[] }).org_admins.includes(USERS.admin.email));
    });

    it('creates orders from files, and verifies a certificate against the certified file', async () => {
      const art = path.join(configDir, 'art.png');
      const other = path.join(configDir, 'other.png');
      writeFileSync(art, pngBytes(9, 7));
      writeFileSync(other, pngBytes(5, 5));
      const created = await run(['orders', 'create', art, '--title', 'from the CLI', '--json'], env);
      assert.equal(created.code, 0, created.stderr);
      const order = JSON.parse(created.stdout) as { order_id: string; order_title: string; order_state: string };
      assert.equal(order.order_title, 'from the CLI');
      assert.equal(order.order_state, 'In Progress');
      await certifyOrder(served.app, order.order_id);
      const verified = await run(['certificate', order.order_id, '--verify', art, '--json'], env);
      assert.equal(verified.code, 0, verified.stderr);
      assert.equal((JSON.parse(verified.stdout) as { status: string }).status, 'valid');
      const wrongFile = await run(['certificate', order.order_id, '--verify', other, '--json'], env);
      assert.equal(wrongFile.code, 9, wrongFile.stderr);
      assert.match(wrongFile.stderr, /^certdesk-client: .*is not the certified file/);
      const waited = await run(['orders', 'wait', order.order_id, '--json'], env);
      assert.equal(waited.code, 0, waited.stderr);
    });

    it('exits with documented codes and one line on stderr per failure', async () => {
      const cases: Array<[string[], Record<string, string>, number]> = [
        [['orders', 'get', 'no-such-order'], env, 5],
        [['orders', 'list', '--limit', '5000'], env, 6],
        [['orders', 'list'], { ...env, CERTDESK_CLIENT_SECRET: 'wrong-secret-0123456789' }, 3],
        [['orders', 'list'], { CERTDESK_CONFIG_DIR: configDir }, 2],
        [['orders', 'list'], { ...env, CERTDESK_BASE_URL: 'http://127.0.0.1:1', CERTDESK_TIMEOUT_MS: '5000' }, 8],
        [['certificate', 'acme-0001'], env, 5],
        [['orders', 'frobnicate'], env, 2],
      ];
      for (const [args, e, code] of cases) {
        const r = await run(args, e);
        assert.equal(r.code, code, `${args.join(' ')}: exit ${r.code}, stderr ${r.stderr}`);
        assert.equal(r.stdout, '', `${args.join(' ')} prints no data`);
        const lines = r.stderr.trimEnd().split('\n').filter((l) => l.startsWith('certdesk-client:'));
        assert.equal(lines.length, 1, `${args.join(' ')}: one failure line, got ${JSON.stringify(r.stderr)}`);
      }
    });

    it('manages webhook endpoints: create (secret once), list, get, update, deliveries, retry, rotate-secret, delete', async () => {
      const hookPath = `/ok?cli-${target.name}`;
      const created = await run(['webhooks', 'create', '--url', receiver.url(hookPath), '--event', 'order.created', '--event', 'certificate.issued,certificate.revoked', '--description', 'CI hook'], env);
      assert.equal(created.code, 0, created.stderr);
      const endpoint = JSON.parse(created.stdout) as { id: string; secret: string; events: string[]; status: string; description: string };
      assert.match(endpoint.secret, /^whsec_/);
      assert.deepEqual(endpoint.events, ['order.created', 'certificate.issued', 'certificate.revoked']);
      assert.match(created.stderr, /not shown again/);

      const listed = await run(['webhooks', 'list'], env);
      assert.equal(listed.code, 0, listed.stderr);
      const rows = listed.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as { id: string; secret?: string });
      assert.ok(rows.some((r) => r.id === endpoint.id) && rows.every((r) => r.secret === undefined), listed.stdout);
      const csv = await run(['webhooks', 'list', '--csv'], env);
      assert.equal(csv.stdout.split('\r\n')[0], 'id,status,url,events,description,disabled_reason,created_at');
      assert.ok(csv.stdout.includes(`${endpoint.id},enabled,`), csv.stdout);
      const asJson = await run(['webhooks', 'get', endpoint.id, '--json'], env);
      assert.equal((JSON.parse(asJson.stdout) as { description: string }).description, 'CI hook');

      const disabled = await run(['webhooks', 'update', endpoint.id, '--disable', '--event', 'order.created'], env);
      assert.equal(disabled.code, 0, disabled.stderr);
      assert.deepEqual(JSON.parse(disabled.stdout), { ...(JSON.parse(asJson.stdout) as object), status: 'disabled', events: ['order.created'] });
      const enabled = await run(['webhooks', 'update', endpoint.id, '--enable'], env);
      assert.equal((JSON.parse(enabled.stdout) as { status: string }).status, 'enabled');

      // A real delivery, then its log and "send again".
      const art = path.join(configDir, 'hook.png');
      writeFileSync(art, pngBytes(4, 4));
      const order = JSON.parse((await run(['orders', 'create', art, '--json'], env)).stdout) as { order_id: string };
      const mine = () => receiver.received.filter((r) => r.path === hookPath);
      const deadline = Date.now() + 60_000;
      while (mine().length === 0) {
        assert.ok(Date.now() < deadline, 'order.created delivered within 60 s');
        if ((await served.app.services.jobs.worker.runDue()) === 0) await new Promise((r) => setTimeout(r, 20));
      }
      assert.equal((JSON.parse(mine()[0]!.body) as { data: { order_id: string } }).data.order_id, order.order_id);
      const deliveries = await run(['webhooks', 'deliveries', endpoint.id, '--all', '--ndjson'], env);
      assert.equal(deliveries.code, 0, deliveries.stderr);
      const [delivery] = deliveries.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as { id: string; event_id: string; status: string; response_status: number });
      assert.deepEqual([delivery!.status, delivery!.response_status, delivery!.event_id], ['succeeded', 200, mine()[0]!.headers['webhook-id']]);
      const retried = await run(['webhooks', 'retry', endpoint.id, delivery!.id], env);
      assert.equal(retried.code, 0, retried.stderr);
      assert.equal(retried.stdout, '');
      while (mine().length < 2) {
        assert.ok(Date.now() < deadline, 'sent again within 60 s');
        if ((await served.app.services.jobs.worker.runDue()) === 0) await new Promise((r) => setTimeout(r, 20));
      }
      assert.equal(mine()[1]!.headers['webhook-id'], delivery!.event_id);

      const rotated = await run(['webhooks', 'rotate-secret', endpoint.id, '--json'], env);
      assert.equal(rotated.code, 0, rotated.stderr);
      assert.notEqual((JSON.parse(rotated.stdout) as { secret: string }).secret, endpoint.secret);

      const failures: Array<[string[], Record<string, string>, number]> = [
        [['webhooks', 'create', '--url', receiver.url('/ok'), '--event', 'order.deleted'], env, 6],
        [['webhooks', 'update', endpoint.id], env, 2],
        [['webhooks', 'create', '--url', receiver.url('/ok')], env, 2],
        [['webhooks', 'list'], { ...env, CERTDESK_CLIENT_ID: USERS.editor.clientId, CERTDESK_CLIENT_SECRET: USERS.editor.clientSecret }, 4],
        [['webhooks', 'retry', endpoint.id, '00000000-0000-4000-8000-000000000000'], env, 5],
      ];
      for (const [args, e, code] of failures) {
        const r = await run(args, e);
        assert.equal(r.code, code, `${args.join(' ')}: exit ${r.code}, stderr ${r.stderr}`);
        assert.equal(r.stdout, '');
        assert.equal(r.stderr.trimEnd().split('\n').filter((l) => l.startsWith('certdesk-client:')).length, 1, r.stderr);
      }

      const deleted = await run(['webhooks', 'delete', endpoint.id], env);
      assert.equal(deleted.code, 0, deleted.stderr);
      assert.equal(deleted.stdout, '');
      assert.equal((await run(['webhooks', 'get', endpoint.id], env)).code, 5);
    });

    it('login checks the credentials, reads the secret from stdin and stores them with mode 0600', async () => {
      const loginEnv = { CERTDESK_CONFIG_DIR: configDir };
      const refused = await run(['login', '--base-url', served.serverUrl, '--client-id', USERS.editor.clientId], loginEnv, 'not-the-secret\n');
      assert.equal(refused.code, 3, refused.stderr);
      assert.ok(!existsSync(path.join(configDir, 'credentials.json')), 'nothing stored for refused credentials');
      const ok = await run(['login', '--base-url', served.serverUrl, '--client-id', USERS.editor.clientId], loginEnv, `${USERS.editor.clientSecret}\n`);
      assert.equal(ok.code, 0, ok.stderr);
      assert.ok(!ok.stderr.includes(USERS.editor.clientSecret) && !ok.stdout.includes(USERS.editor.clientSecret), 'the secret is never printed');
      const file = path.join(configDir, 'credentials.json');
      assert.equal(statSync(file).mode & 0o777, 0o600);
      assert.equal((JSON.parse(readFileSync(file, 'utf8')) as { clientId: string }).clientId, USERS.editor.clientId);
      const list = await run(['orders', 'list', '--all'], loginEnv);
      assert.equal(list.code, 0, list.stderr);
      assert.ok(list.stdout.trimEnd().split('\n').length > 0);
      rmSync(file);
    });
  });
}
