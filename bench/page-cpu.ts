/**
 * CPU per listing page, in one process (`npx tsx bench/page-cpu.ts`): not a test. Calls `listOrdersBody`
 * sequentially (one request in flight, nothing else on the connections) against the `npm run bench`
 * database and prints the CPU time per call of this process (user + system, process.cpuUsage) and of its
 * PostgreSQL backends (/proc), for (a) full pages of 200, (c) previews of 200, (a1000) full pages of 1,000,
 * and a bare `SELECT 1` round trip as the fixed cost of one statement.
 *
 * Flags: --calls N (default 1,000 per scenario), --orders N (the database of `npm run bench -- --orders N`).
 * Other load on the machine moves CPU time per call much less than it moves wall time.
 */
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.js';
import { principalFor, principalUserOfRow } from '../src/domain/principal.js';
import { createOrdersContext, listOrdersBody } from '../src/domain/orders/index.js';
import { openDatabase } from '../src/storage/database.js';
import { cpuMsOf, postgresBackendsOf } from './server-process.js';

const { values: FLAGS } = parseArgs({ options: { calls: { type: 'string', default: '1000' }, orders: { type: 'string' } } });
const CALLS = Number(FLAGS.calls);
const ORDERS = FLAGS.orders ? Number(FLAGS.orders) : 1_000_000;
const APP = 'certdesk-page-cpu';
const DATABASE_URL = process.env.DATABASE_URL ?? `postgres://postgres@127.0.0.1:5432/certdesk_bench${ORDERS === 1_000_000 ? '' : `_${ORDERS}`}`;
const BIG_ORG = 'be000000-0000-4000-8000-000000000001';

async function main(): Promise<void> {
  process.env.PGAPPNAME = APP;
  const handle = await openDatabase({ databaseUrl: DATABASE_URL, pgliteDir: null, poolSize: 4 });
  try {
    const ctx = await createOrdersContext(handle.db, loadConfig({ PUBLIC_BASE_URL: 'http://certdesk.bench' }), { hotReads: handle.hotReads });
    const u = await handle.db.selectFrom('users').selectAll().where('organization_id', '=', BIG_ORG).where('is_admin', '=', true).executeTakeFirstOrThrow();
    const principal = principalFor(principalUserOfRow({ ...u, user_id: u.id }), 'bench-big', ['enterprise-api-access/read']);
    const scenarios: Array<[string, () => Promise<unknown>]> = [
      ['SELECT 1 round trip', () => sql`SELECT 1`.execute(handle.db)],
      ['(a) limit=200', () => listOrdersBody(ctx, principal, { projectId: 'All Projects', limit: 200 })],
      ['(c) limit=200&preview=true', () => listOrdersBody(ctx, principal, { projectId: 'All Projects', limit: 200, preview: true })],
      ['(a1000) limit=1000', () => listOrdersBody(ctx, principal, { projectId: 'All Projects', limit: 1000 })],
    ];
    for (const [name, call] of scenarios) {
      for (let i = 0; i < Math.min(200, CALLS); i++) await call(); // warm-up: statements prepared, code optimized
      const backends = await postgresBackendsOf(DATABASE_URL, APP);
      const pgBefore = backends.reduce((s, pid) => s + cpuMsOf(pid), 0);
      const before = process.cpuUsage();
      const started = process.hrtime.bigint();
      for (let i = 0; i < CALLS; i++) await call();
      const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
      const used = process.cpuUsage(before);
      const pgMs = backends.reduce((s, pid) => s + cpuMsOf(pid), 0) - pgBefore;
      const nodeMs = (used.user + used.system) / 1000;
      process.stdout.write(
        `${name.padEnd(28)} node CPU ${(nodeMs / CALLS).toFixed(3)} ms/call, PostgreSQL CPU ${(pgMs / CALLS).toFixed(3)} ms/call, wall ${(wallMs / CALLS).toFixed(3)} ms/call\n`,
      );
    }
  } finally {
    await handle.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`page-cpu: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
