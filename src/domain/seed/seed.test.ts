import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Kysely, PostgresDialect, sql, type KyselyPlugin } from 'kysely';
import pg from 'pg';
import { describeOnEachDatabase } from '../../../test/helpers/database.js';
import { ACME, ACME_ORDER_COUNT, GLOBEX_ORDER_COUNT, USERS, loadStandardFixture, standardSeedDocument, temporaryObjectStorage, removeTemporaryObjectStorages } from '../../../test/helpers/fixtures.js';
import { DatabaseUnavailableError } from '../../storage/database-availability.js';
import type { Database } from '../../storage/schema.js';
import type { DatabaseHandle } from '../../storage/database.js';
import { verifyPassword } from '../users/password.js';
import { verifyClientSecret } from '../api-clients/client-credentials.js';
import { loadSeed, SeedError, validateSeedDocument } from './seed.js';

/** Everything a seed writes, as comparable text: proves "nothing changed". */
async function snapshot(handle: DatabaseHandle): Promise<string> {
  const tables = ['organizations', 'users', 'projects', 'project_members', 'api_clients', 'orders', 'order_counters'];
  const parts: string[] = [];
  for (const t of tables) {
    const rows = await sql<{ j: string }>`SELECT coalesce(json_agg(x ORDER BY x::text), '[]')::text AS j FROM (SELECT * FROM ${sql.table(t)}) x`.execute(handle.db);
    parts.push(`${t}:${rows.rows[0]!.j}`);
  }
  return parts.join('\n');
}

function expectSeedError(fn: () => unknown, path: string, message: RegExp) {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof SeedError, `expected SeedError, got ${String(err)}`);
    assert.equal(err.problem.path, path);
    assert.match(err.problem.message, message);
    return true;
  });
}

describe('seed document validation', () => {
  it('names the path and the rule of a bad order state', () => {
    const doc = standardSeedDocument() as unknown as { organizations: Array<{ orders: Array<Record<string, unknown>> }> };
    doc.organizations[0]!.orders[12]!.order_state = 'Done';
    expectSeedError(() => validateSeedDocument(doc), 'organizations[0].orders[12].order_state', /^must be one of "In Progress", "Human Certified", "Action Required", "Reviewed", "Failed", "Unsupported File"$/);
  });

  it('names missing fields, unknown fields and wrong types', () => {
    const missing = standardSeedDocument() as unknown as { organizations: Array<{ orders: Array<Record<string, unknown>> }> };
    delete missing.organizations[1]!.orders[0]!.email;
    expectSeedError(() => validateSeedDocument(missing), 'organizations[1].orders[0].email', /is required/);
    const extra = standardSeedDocument() as unknown as { organizations: Array<Record<string, unknown>> };
    extra.organizations[0]!.colour = 'red';
    expectSeedError(() => validateSeedDocument(extra), 'organizations[0].colour', /not an allowed field/);
    const wrongType = standardSeedDocument() as unknown as { organizations: Array<{ orders: Array<Record<string, unknown>> }> };
    wrongType.organizations[0]!.orders[3]!.confidence = '0.5';
    expectSeedError(() => validateSeedDocument(wrongType), 'organizations[0].orders[3].confidence', /must be a number/);
    expectSeedError(() => validateSeedDocument([]), '', /^expected a JSON object \{"organizations": \[\.\.\.\], "objects": \[\.\.\.\]\} \(see docs\/seed-format\.md\), got an array$/);
  });

  it('refuses duplicates and broken review rules', () => {
    const dup = standardSeedDocument();
    dup.organizations[0]!.orders![5]!.order_id = dup.organizations[0]!.orders![2]!.order_id;
    expectSeedError(() => validateSeedDocument(dup), 'organizations[0].orders[5].order_id', /duplicates the order_id of organizations\[0\]\.orders\[2\]\.order_id/);
    const review = standardSeedDocument();
    const reviewed = review.organizations[0]!.orders!.findIndex((o) => o.order_state === 'Reviewed');
    review.organizations[0]!.orders![reviewed]!.reviewed_by = null;
    expectSeedError(() => validateSeedDocument(review), `organizations[0].orders[${reviewed}].reviewed_by`, /set together/);
    const badDate = standardSeedDocument();
    badDate.organizations[0]!.orders![0]!.creation_time = '2026-02-30T00:00:00Z';
    expectSeedError(() => validateSeedDocument(badDate), 'organizations[0].orders[0].creation_time', /real RFC 3339/);
  });
});

describeOnEachDatabase('seed loading', (getDb) => {

  it('loads the standard fixture, and loading it again changes nothing', async () => {
    const { storage } = temporaryObjectStorage();
    const first = await loadSeed(getDb().db, storage, standardSeedDocument());
    assert.equal(first.orders, ACME_ORDER_COUNT + GLOBEX_ORDER_COUNT);
    assert.ok(first.changed > 0);
    const before = await snapshot(getDb());
    const second = await loadSeed(getDb().db, storage, standardSeedDocument());
    assert.equal(second.changed, 0);
    assert.equal(await snapshot(getDb()), before);

    const counters = await getDb().db.selectFrom('order_counters').select((eb) => eb.fn.sum<number>('order_count').as('n')).where('organization_id', '=', ACME.id).executeTakeFirstOrThrow();
    assert.equal(Number(counters.n), ACME_ORDER_COUNT);
    const admin = await getDb().db.selectFrom('users').selectAll().where('email_key', '=', USERS.admin.email).executeTakeFirstOrThrow();
    assert.equal(await verifyPassword(USERS.admin.password, admin.password_hash), true);
    const client = await getDb().db.selectFrom('api_clients').selectAll().where('client_id', '=', USERS.viewer.clientId).executeTakeFirstOrThrow();
    assert.equal(verifyClientSecret(USERS.viewer.clientSecret, client.secret_hash), true);
    assert.notEqual(client.secret_hash, USERS.viewer.clientSecret);
    const object = await storage.get(`orgs/${ACME.id}/previews/acme-0.png`);
    assert.equal(object?.contentType, 'image/png');
    object?.body.destroy();
  });

  it('writes nothing when a record fails in the database phase', async () => {
    const before = await snapshot(getDb());
    const { storage } = temporaryObjectStorage();
    const doc = standardSeedDocument();
    doc.organizations[0]!.name = 'Renamed';
    doc.organizations[0]!.orders![7]!.project_id = '99999999-0000-4000-8000-000000000000';
    await assert.rejects(loadSeed(getDb().db, storage, doc), (err: unknown) => {
      assert.ok(err instanceof SeedError);
      assert.equal(err.problem.path, 'organizations[0].orders[7].project_id');
      return true;
    });
    assert.equal(await snapshot(getDb()), before);
    assert.equal(await storage.exists(`orgs/${ACME.id}/previews/acme-0.png`), false, 'objects written before the failure are removed');
  });

  it('blames a project conflict on the field at fault (id of another organization, name in use)', async () => {
    await loadStandardFixture(getDb());
    const doc = standardSeedDocument();
    doc.objects = [];
    doc.organizations[0]!.projects![0]!.id = '99999999-0000-4000-8000-000000000001';
    await assert.rejects(loadSeed(getDb().db, temporaryObjectStorage().storage, doc), /organizations\[0\]\.projects\[0\]\.name: a project named/);
  });

  it('reports a database outage while writing as the database being unavailable, never as a field of the file', async () => {
    const before = await snapshot(getDb());
    const { storage } = temporaryObjectStorage();
    // The connection drops at the first statement on projects (inside the write that used to guess a field).
    const outage: KyselyPlugin = {
      transformQuery(args) {
        if (JSON.stringify(args.node).includes('"projects"')) throw new Error('Connection terminated unexpectedly');
        return args.node;
      },
      transformResult: async (args) => args.result,
    };
    await assert.rejects(loadSeed(getDb().db.withPlugin(outage), storage, standardSeedDocument()), (err: unknown) => {
      assert.ok(err instanceof DatabaseUnavailableError, `expected DatabaseUnavailableError, got ${String(err)}`);
      assert.match(err.message, /^the database is unavailable, nothing was seeded: Connection terminated unexpectedly$/);
      return true;
    });
    assert.equal(await snapshot(getDb()), before);
    assert.equal(await storage.exists(`orgs/${ACME.id}/previews/acme-0.png`), false, 'objects written before the failure are removed');
  });

  it('refuses a user or order that belongs to another organization', async () => {
    const doc = standardSeedDocument();
    doc.organizations = [doc.organizations[1]!];
    // Acme's objects and keys would be refused first (they are outside Globex's prefix).
    doc.objects = [];
    doc.organizations[0]!.users!.push({ email: USERS.viewer.email.toUpperCase(), username: 'Thief' });
    await assert.rejects(loadSeed(getDb().db, temporaryObjectStorage().storage, doc), /organizations\[0\]\.users\[1\]\.email: already belongs to a user of another organization/);
    const stolen = standardSeedDocument();
    stolen.objects = [];
    stolen.organizations = [{ ...stolen.organizations[1]!, orders: [{ ...stolen.organizations[0]!.orders![0]!, project_id: null, asset_preview_key: null, layers: [] }] }];
    await assert.rejects(loadSeed(getDb().db, temporaryObjectStorage().storage, stolen), /organizations\[0\]\.orders\[0\]\.order_id: already belongs to another organization/);
  });

  it('keeps order_counters equal to a recount after the fixture and an update', async () => {
    await loadStandardFixture(getDb());
    const doc = standardSeedDocument();
    doc.organizations[0]!.orders![1]!.order_state = 'Failed';
    doc.organizations[0]!.orders![2]!.project_id = null;
    await loadSeed(getDb().db, temporaryObjectStorage().storage, doc);
    const drift = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM (
        SELECT organization_id, CASE WHEN project_id IS NULL THEN 'personal:' || owner_key ELSE 'project:' || project_id::text END AS scope_key, order_state, count(*) AS c
        FROM orders GROUP BY 1, 2, 3) a
      FULL JOIN (SELECT * FROM order_counters WHERE order_count <> 0) c USING (organization_id, scope_key, order_state)
      WHERE a.c IS DISTINCT FROM c.order_count`.execute(getDb().db);
    assert.equal(drift.rows[0]!.n, 0);
  });
});

describe('seed against a PostgreSQL server nobody listens on', () => {
  it('says the database is unavailable, naming no field', async () => {
    // Port 1 on the loopback: nothing listens there, the connection is refused at once.
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: 'postgres://certdesk@127.0.0.1:1/certdesk', connectionTimeoutMillis: 2000 }) }) });
    try {
      const doc = standardSeedDocument();
      doc.objects = [];
      await assert.rejects(loadSeed(db, temporaryObjectStorage().storage, doc), (err: unknown) => {
        assert.ok(err instanceof DatabaseUnavailableError, `expected DatabaseUnavailableError, got ${String(err)}`);
        assert.match(err.message, /^the database is unavailable, nothing was seeded: ECONNREFUSED/);
        return true;
      });
    } finally {
      await db.destroy();
    }
  });
});

// The temporary object storage folders this file made (test/helpers/fixtures.ts).
after(removeTemporaryObjectStorages);
