/**
 * `certdesk reviewer grant|revoke|list` end to end: the real CLI (through tsx, or bin/certdesk under
 * `npm test`) against a throw-away PostgreSQL database (TEST_DATABASE_URL) or embedded PGlite in a
 * temporary data directory.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { CliScratch, CLI_DATABASES } from './cli-harness.js';

const SEED = fileURLToPath(new URL('../../docs/examples/seed-small.json', import.meta.url));

for (const database of CLI_DATABASES) describe(`certdesk reviewer (end to end, ${database})`, () => {
  let scratch: CliScratch;
  const certdesk = (args: string[]) => scratch.run(args);

  before(async () => {
    scratch = await CliScratch.open('reviewer-cli', database);
    const seeded = await certdesk(['seed', SEED]);
    assert.equal(seeded.code, 0, seeded.stderr);
  });
  after(async () => {
    await scratch?.close();
  });

  it('grants, lists and revokes (text and --json); granting twice and revoking twice change nothing', async () => {
    const grant = await certdesk(['reviewer', 'grant', 'Owner@Small-Studio.example', '--json']);
    assert.equal(grant.code, 0, grant.stderr);
    assert.deepEqual(JSON.parse(grant.stdout), { email: 'owner@small-studio.example', changed: true, reviewer: true });
    const twice = await certdesk(['reviewer', 'grant', 'owner@small-studio.example']);
    assert.equal(twice.stdout, 'owner@small-studio.example was already a reviewer\n');
    const list = await certdesk(['reviewer', 'list', '--json']);
    const reviewers = JSON.parse(list.stdout) as Array<Record<string, string>>;
    assert.equal(reviewers.length, 1);
    assert.deepEqual({ ...reviewers[0], granted_at: undefined }, {
      email: 'owner@small-studio.example',
      username: 'Olive Owner',
      organization_id: reviewers[0]!.organization_id,
      organization_name: 'Small Studio',
      granted_at: undefined,
    });
    assert.ok(!Number.isNaN(Date.parse(reviewers[0]!.granted_at!)));
    assert.match((await certdesk(['reviewer', 'list'])).stdout, /^owner@small-studio\.example {2}Olive Owner {2}\(Small Studio, [0-9a-f-]{36}\) {2}since /);
    const revoke = await certdesk(['reviewer', 'revoke', 'owner@small-studio.example']);
    assert.equal(revoke.stdout, 'owner@small-studio.example is no longer a reviewer\n');
    assert.deepEqual(JSON.parse((await certdesk(['reviewer', 'revoke', 'owner@small-studio.example', '--json'])).stdout), { email: 'owner@small-studio.example', changed: false, reviewer: false });
    assert.equal((await certdesk(['reviewer', 'list'])).stdout, 'no reviewers\n');
    assert.deepEqual(JSON.parse((await certdesk(['reviewer', 'list', '--json'])).stdout), []);
  });

  it('an unknown e-mail or a missing argument fails with one line and exit code 1', async () => {
    const unknown = await certdesk(['reviewer', 'grant', 'nobody@nowhere.example']);
    assert.equal(unknown.code, 1);
    assert.equal(unknown.stderr, 'certdesk: no user with e-mail nobody@nowhere.example\n');
    const missing = await certdesk(['reviewer', 'revoke']);
    assert.equal(missing.code, 1);
    assert.equal(missing.stderr.split('\n').filter(Boolean).length, 1);
  });
});
