/**
 * End-to-end tests of the operator commands: each spawns the real CLI (through tsx, so no build is needed)
 * against a temporary embedded database, and checks exit codes, stdout (--json) and single-line errors.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { CliScratch, CLI_DATABASES, expectOneLineError, lines } from './cli-harness.js';

for (const database of CLI_DATABASES) describe(`certdesk operator commands (end to end, ${database})`, () => {
  const ORG = '5eed0000-0000-4000-8000-000000000001';
  const PROJECT = '5eed0000-0000-4000-8000-0000000000a1';

  let scratch: CliScratch;
  let dir: string;
  const certdesk = (args: string[], stdin = '') => scratch.run(args, stdin);

  before(async () => {
    scratch = await CliScratch.open('cli', database);
    dir = scratch.dir;
  });
  after(async () => {
    await scratch?.close();
  });

  it('refuses unknown commands and flags with exit code 1', async () => {
    const command = await certdesk(['frobnicate']);
    assert.equal(command.code, 1);
    assert.deepEqual(lines(command.stderr), ["certdesk: unknown command 'frobnicate' (see --help)"]);
    const flag = await certdesk(['org', 'list', '--colour']);
    assert.equal(flag.code, 1);
    assert.deepEqual(lines(flag.stderr), ["certdesk: unknown option '--colour' (see --help)"]);
  });

  it('explains a missing file, a bad seed and a missing organization in one line', async () => {
    expectOneLineError(await certdesk(['import', '--org', ORG, path.join(dir, 'missing.ndjson')]), /^certdesk: cannot read .*missing\.ndjson: ENOENT\n$/);
    const seed = path.join(dir, 'bad-seed.json');
    writeFileSync(seed, JSON.stringify({ organizations: [{ id: ORG, name: 'X', orders: [{ order_id: 'x' }] }] }));
    expectOneLineError(await certdesk(['seed', seed]), /^certdesk: .*bad-seed\.json: organizations\[0\]\.orders\[0\]\.\w+: is required\n$/);
    const list = path.join(dir, 'list-seed.json');
    writeFileSync(list, '[]');
    expectOneLineError(
      await certdesk(['seed', list]),
      /^certdesk: .*list-seed\.json: expected a JSON object \{"organizations": \[\.\.\.\], "objects": \[\.\.\.\]\} \(see docs\/seed-format\.md\), got an array\n$/,
    );
    const typo = await certdesk(['import', '--organization', ORG, path.join(dir, 'x.ndjson')]);
    assert.equal(typo.code, 1);
    assert.deepEqual(lines(typo.stderr), ["certdesk: unknown option '--organization' (see --help)"]);
    expectOneLineError(await certdesk(['import', path.join(dir, 'x.ndjson')]), /^certdesk: required option '--org <id>' not specified \(see --help\)\n$/);
    expectOneLineError(await certdesk(['user', 'list', '--org', ORG]), /^certdesk: no organization with id 5eed0000-0000-4000-8000-000000000001\n$/);
  });

  it('loads the complete example of docs/seed-format.md, twice without changes; seed --help points to the format', async () => {
    const example = fileURLToPath(new URL('../../docs/examples/seed-small.json', import.meta.url));
    const first = await certdesk(['seed', example, '--json']);
    assert.equal(first.code, 0, first.stderr);
    const report = JSON.parse(first.stdout);
    assert.deepEqual({ ...report, changed: undefined }, { organizations: 1, users: 2, projects: 1, apiClients: 1, orders: 3, objects: 3, changed: undefined });
    assert.ok(report.changed > 0);
    const again = await certdesk(['seed', example, '--json']);
    assert.equal(JSON.parse(again.stdout).changed, 0);
    const help = await certdesk(['seed', '--help']);
    assert.match(help.stdout, /docs\/seed-format\.md/);
  });

  it('demo-data --seed-file says what it wrote', async () => {
    const file = path.join(dir, 'demo-seed.json');
    const run = await certdesk(['demo-data', '--seed-file', file]);
    assert.equal(run.code, 0, run.stderr);
    const seed = JSON.parse(readFileSync(file, 'utf8'));
    const orders = seed.organizations.reduce((n: number, o: { orders?: unknown[] }) => n + (o.orders?.length ?? 0), 0);
    assert.match(run.stdout, new RegExp(`^wrote .*demo-seed\\.json: ${seed.organizations.length} organizations, .* ${orders} orders, ${seed.objects.length} objects \\(\\d+ bytes\\); load it with: certdesk seed .*demo-seed\\.json\\n$`));
  });

  it('creates and lists organizations, users, projects, members and clients (--json), password from stdin', async () => {
    const org = await certdesk(['org', 'create', '--name', 'CLI Test Org', '--id', ORG, '--json']);
    assert.equal(org.code, 0, org.stderr);
    assert.deepEqual({ ...JSON.parse(org.stdout), created_at: undefined }, { id: ORG, name: 'CLI Test Org', created_at: undefined });
    expectOneLineError(await certdesk(['org', 'create', '--name', 'Again', '--id', ORG]), /already exists/);
    assert.ok(JSON.parse((await certdesk(['org', 'list', '--json'])).stdout).some((o: { id: string }) => o.id === ORG));

    const admin = await certdesk(['user', 'add', '--org', ORG, '--email', 'ada@cli.test', '--username', 'Ada', '--admin', '--password-stdin', '--json'], 'correct horse battery\n');
    assert.equal(admin.code, 0, admin.stderr);
    assert.equal(JSON.parse(admin.stdout).has_password, true);
    assert.ok(!admin.stdout.includes('correct horse'), 'the password is never printed');
    expectOneLineError(await certdesk(['user', 'add', '--org', ORG, '--email', 'short@cli.test', '--username', 'S', '--password-stdin'], 'short\n'), /password must be 8/);
    const viewer = await certdesk(['user', 'add', '--org', ORG, '--email', 'vic@cli.test', '--username', 'Vic', '--json']);
    assert.equal(JSON.parse(viewer.stdout).has_password, false);
    const users = JSON.parse((await certdesk(['user', 'list', '--org', ORG, '--json'])).stdout) as Array<{ email: string; is_admin: boolean }>;
    assert.deepEqual(users.map((u) => [u.email, u.is_admin]), [['ada@cli.test', true], ['vic@cli.test', false]]);

    const project = await certdesk(['project', 'create', '--org', ORG, '--name', 'Launch', '--id', PROJECT, '--json']);
    assert.equal(JSON.parse(project.stdout).id, PROJECT);
    expectOneLineError(await certdesk(['project', 'create', '--org', ORG, '--name', 'Launch']), /already exists in the organization/);
    const added = await certdesk(['project', 'add-member', '--project', PROJECT, '--email', 'vic@cli.test', '--role', 'viewer', '--json']);
    assert.deepEqual(JSON.parse(added.stdout).members, [{ email: 'vic@cli.test', role: 'viewer' }]);
    expectOneLineError(await certdesk(['project', 'add-member', '--project', PROJECT, '--email', 'vic@cli.test', '--role', 'owner']), /role must be one of admin, editor, viewer/);
    expectOneLineError(await certdesk(['project', 'add-member', '--project', PROJECT, '--email', 'nobody@cli.test', '--role', 'editor']), /no user with e-mail nobody@cli\.test/);
    const listed = JSON.parse((await certdesk(['project', 'list', '--org', ORG, '--json'])).stdout);
    assert.deepEqual(listed.map((p: { name: string; members: unknown[] }) => [p.name, p.members.length]), [['Launch', 1]]);
    const removed = await certdesk(['project', 'remove-member', '--project', PROJECT, '--email', 'vic@cli.test', '--json']);
    assert.deepEqual(JSON.parse(removed.stdout).members, []);
    expectOneLineError(await certdesk(['project', 'remove-member', '--project', PROJECT, '--email', 'vic@cli.test']), /is not a member/);

    const created = await certdesk(['client', 'create', '--org', ORG, '--user-email', 'ada@cli.test', '--name', 'CI', '--scope', 'enterprise-api-access/read', 'enterprise-api-access/write', '--json']);
    assert.equal(created.code, 0, created.stderr);
    const client = JSON.parse(created.stdout) as { client_id: string; client_secret: string; scopes: string[] };
    assert.match(client.client_secret, /^cds_[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(client.scopes, ['enterprise-api-access/read', 'enterprise-api-access/write']);
    expectOneLineError(await certdesk(['client', 'create', '--org', ORG, '--user-email', 'ada@cli.test', '--scope', 'admin']), /unknown scope: admin/);
    const clients = await certdesk(['client', 'list', '--org', ORG, '--json']);
    assert.ok(!clients.stdout.includes(client.client_secret), 'list never shows the secret');
    assert.deepEqual(JSON.parse(clients.stdout).map((c: { client_id: string; revoked_at: string | null }) => [c.client_id, c.revoked_at]), [[client.client_id, null]]);
    const revoked = await certdesk(['client', 'revoke', client.client_id, '--json']);
    assert.ok(JSON.parse(revoked.stdout).revoked_at);
    expectOneLineError(await certdesk(['client', 'revoke', 'cd_nope']), /no API client with id cd_nope/);
  });

  it('imports generated orders from standard input, then refuses them again with nothing written', async () => {
    const generated = await certdesk(['demo-data', '--ndjson', '300', '--org', ORG, '--project', PROJECT, '--seed', '5']);
    assert.equal(generated.code, 0, generated.stderr);
    assert.equal(lines(generated.stdout).length, 300);
    const again = await certdesk(['demo-data', '--ndjson', '300', '--org', ORG, '--project', PROJECT, '--seed', '5']);
    assert.equal(again.stdout, generated.stdout, 'deterministic');
    const imported = await certdesk(['import', '--org', ORG, '-', '--json'], generated.stdout);
    assert.equal(imported.code, 0, imported.stderr);
    assert.equal(JSON.parse(imported.stdout).orders, 300);
    expectOneLineError(await certdesk(['import', '--org', ORG, '-'], generated.stdout), /^certdesk: line 1: order_id: duplicate order id "gen5-000000"/);
    // The import wrote the renderer's documents: a repair finds nothing to rewrite, for all or for one.
    const rerendered = await certdesk(['orders', 'rerender', '--all', '--json']);
    assert.equal(rerendered.code, 0, rerendered.stderr);
    const all = JSON.parse(rerendered.stdout) as { checked: number; rewritten: number };
    assert.ok(all.checked >= 300, String(all.checked));
    assert.equal(all.rewritten, 0);
    const one = await certdesk(['orders', 'rerender', 'gen5-000000']);
    assert.equal(one.stdout, '1 order checked, 0 rewritten\n');
    expectOneLineError(await certdesk(['orders', 'rerender']), /^certdesk: give either an ORDER_ID or --all\n$/);
    expectOneLineError(await certdesk(['orders', 'rerender', 'gen5-000000', '--all']), /^certdesk: give either an ORDER_ID or --all\n$/);
    expectOneLineError(await certdesk(['orders', 'rerender', 'no-such-order']), /^certdesk: order no-such-order does not exist\n$/);
    const file = path.join(dir, 'bad.ndjson');
    const bad = lines(generated.stdout).map((l) => l.replace('gen5-', 'new5-'));
    bad[150] = bad[150]!.replace(/"order_state":"[^"]+"/, '"order_state":"Done"');
    writeFileSync(file, `${bad.join('\n')}\n`);
    expectOneLineError(await certdesk(['import', '--org', ORG, file]), /^certdesk: line 151: order_state: must be one of /);
  });

  it('writes the same demo seed file every time', async () => {
    const a = path.join(dir, 'a.json');
    const b = path.join(dir, 'b.json');
    assert.equal((await certdesk(['demo-data', '--seed-file', a])).code, 0);
    assert.equal((await certdesk(['demo-data', '--seed-file', b])).code, 0);
    assert.ok(readFileSync(a).equals(readFileSync(b)));
    expectOneLineError(await certdesk(['demo-data']), /give exactly one of --seed-file FILE or --ndjson COUNT/);
  });
});
