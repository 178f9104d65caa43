import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { PGlitePool } from '../pglite-pool.js';
import { readyStatusOf, SOCKET_PORT, startPGliteSocketServer, type PGliteSocketServer } from './pglite-socket-server.js';

const HELD_IDLE_MS = 300;

/** One query on the server's own side, through its pool, as the API runs them. */
async function serverQuery(pool: PGlitePool, text: string): Promise<Record<string, unknown>[]> {
  const client = await pool.connect();
  try {
    return (await client.query<Record<string, unknown>>(text, [])).rows;
  } finally {
    client.release();
  }
}

describe('PGlite shared over a unix socket', () => {
  let root: string;
  let pool: PGlitePool;
  let server: PGliteSocketServer;
  const connect = async () => {
    const client = new pg.Client({ host: server.socketDir, port: SOCKET_PORT, user: 'postgres', database: 'template1' });
    client.on('error', () => undefined);
    await client.connect();
    return client;
  };

  before(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'certdesk-sock-'));
    pool = new PGlitePool(await PGlite.create());
    await pool.pglite.exec('CREATE TABLE t (id int PRIMARY KEY, v text)');
    server = await startPGliteSocketServer(pool, path.join(root, 'db.socket'));
  });
  after(async () => {
    await server.close();
    await pool.end();
    rmSync(root, { recursive: true, force: true });
  });

  it('listens on a socket only its user can use, next to the database', () => {
    assert.equal(server.socketPath, path.join(root, 'db.socket', `.s.PGSQL.${SOCKET_PORT}`));
    assert.equal(statSync(server.socketPath).mode & 0o777, 0o600);
    assert.equal(statSync(server.socketDir).mode & 0o777, 0o700);
  });

  it('falls back to a private temporary directory when the path is too long for a socket, and removes it on close', async () => {
    const long = await startPGliteSocketServer(pool, path.join(root, 'x'.repeat(120), 'db.socket'));
    try {
      assert.equal(path.dirname(long.socketDir), os.tmpdir());
      assert.equal(statSync(long.socketDir).mode & 0o777, 0o700);
      const client = new pg.Client({ host: long.socketDir, port: SOCKET_PORT, user: 'postgres', database: 'template1' });
      await client.connect();
      assert.deepEqual((await client.query('SELECT 1 AS one')).rows, [{ one: 1 }]);
      await client.end();
    } finally {
      await long.close();
    }
    assert.equal(existsSync(long.socketDir), false);
  });

  it("keeps a client's transaction whole: the server's own queries wait for its end, never run inside it", async () => {
    const client = await connect();
    try {
      await client.query('BEGIN');
      await client.query('INSERT INTO t VALUES (1, $1)', ['in transaction']);
      let seen: Record<string, unknown>[] | null = null;
      const waiting = serverQuery(pool, 'SELECT count(*)::int AS n FROM t').then((rows) => (seen = rows));
      await client.query('INSERT INTO t VALUES (2, $1)', ['still in it']);
      assert.equal(seen, null, 'the server query waits while the transaction is open');
      await client.query('ROLLBACK');
      await waiting;
      assert.deepEqual(seen, [{ n: 0 }], 'and never saw the rolled back rows');
      await client.query('INSERT INTO t VALUES (3, $1)', ['committed']);
      assert.deepEqual(await serverQuery(pool, 'SELECT v FROM t'), [{ v: 'committed' }]);
    } finally {
      await client.end();
    }
    assert.deepEqual(await serverQuery(pool, 'SELECT 1 AS alive'), [{ alive: 1 }], "a client's Terminate does not end the server's session");
  });

  it('rolls back what a client that disconnects mid-transaction left open', async () => {
    const client = await connect();
    await client.query('BEGIN');
    await client.query('INSERT INTO t VALUES (10, $1)', ['abandoned']);
    (client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
    assert.deepEqual(await serverQuery(pool, 'SELECT count(*)::int AS n FROM t WHERE id = 10'), [{ n: 0 }]);
    assert.equal(pool.pglite.isInTransaction(), false);
  });

  it('cuts off a client that stalls inside a transaction, so the API is not held forever', async () => {
    const strict = await startPGliteSocketServer(pool, path.join(root, 'strict.socket'), { heldIdleMs: HELD_IDLE_MS });
    const client = new pg.Client({ host: strict.socketDir, port: SOCKET_PORT, user: 'postgres', database: 'template1' });
    client.on('error', () => undefined);
    await client.connect();
    await client.query('BEGIN');
    await client.query('INSERT INTO t VALUES (11, $1)', ['stalled']);
    const started = performance.now();
    assert.deepEqual(await serverQuery(pool, 'SELECT count(*)::int AS n FROM t WHERE id = 11'), [{ n: 0 }]);
    const waited = performance.now() - started;
    assert.ok(waited >= HELD_IDLE_MS * 0.9 && waited < HELD_IDLE_MS + 5_000, `waited ${waited} ms`);
    await assert.rejects(client.query('COMMIT'));
    await client.end().catch(() => undefined);
    await strict.close();
  });

  it('refuses COPY FROM STDIN with an error instead of letting it bring PGlite down', async () => {
    const client = await connect();
    try {
      await assert.rejects(pipeline(Readable.from(['20\tcopied\n']), client.query(copyFrom('COPY t (id, v) FROM STDIN'))), /COPY FROM STDIN is not available through the certdesk serve socket/);
      await assert.rejects(client.query('copy /* x */ t from\nstdin'), /not available/);
      assert.deepEqual((await client.query('SELECT count(*)::int AS n FROM t WHERE id = 20')).rows, [{ n: 0 }], 'the connection goes on');
    } finally {
      await client.end();
    }
    assert.deepEqual(await serverQuery(pool, 'SELECT 1 AS alive'), [{ alive: 1 }]);
  });

  it('serves several clients, one unit of work at a time', async () => {
    const clients = await Promise.all([connect(), connect(), connect()]);
    try {
      await Promise.all(
        clients.map(async (client, i) => {
          for (let k = 0; k < 10; k++) {
            await client.query('BEGIN');
            await client.query('INSERT INTO t VALUES ($1, $2)', [100 + i * 100 + k, `client ${i}`]);
            await client.query('COMMIT');
          }
        }),
      );
      assert.deepEqual(await serverQuery(pool, 'SELECT count(*)::int AS n FROM t WHERE id >= 100'), [{ n: 30 }]);
    } finally {
      await Promise.all(clients.map((c) => c.end()));
    }
  });
});

describe('readyStatusOf', () => {
  const message = (type: string, body: number[]) => [type.charCodeAt(0), 0, 0, 0, 4 + body.length, ...body];
  it('reads the transaction status of a closing ReadyForQuery, and nothing else', () => {
    assert.equal(readyStatusOf(Uint8Array.from([...message('C', [0x42, 0]), ...message('Z', [0x49])])), 'I');
    assert.equal(readyStatusOf(Uint8Array.from(message('Z', [0x54]))), 'T');
    assert.equal(readyStatusOf(Uint8Array.from([...message('Z', [0x49]), ...message('1', [])])), null);
    // A data row whose last bytes merely look like ReadyForQuery.
    assert.equal(readyStatusOf(Uint8Array.from(message('D', [0, 1, 0, 0, 0, 6, 0x5a, 0, 0, 0, 5, 0x49]))), null);
    assert.equal(readyStatusOf(new Uint8Array(0)), null);
  });
});
