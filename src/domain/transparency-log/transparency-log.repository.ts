/**
 * SQL of the transparency log (migrations/0018): entries written with their certificate, the sequencer's
 * state row and lease, the stored hashes of levels ≥ 1, the signed checkpoints, and the log's key.
 */
import { sql } from 'kysely';
import { arrayLiteral } from '../../storage/array-literal.js';
import type { Executor } from '../../storage/database.js';
import type { LogEntryKind } from './entries.js';
import { TILE_WIDTH } from './tile-path.js';
import { openTileBase, type CompletedHash, type LevelHashes } from './tree-view.js';

const bytes = (value: Uint8Array): Buffer => Buffer.from(value.buffer, value.byteOffset, value.byteLength);

export interface NewLogEntry {
  certificateId: string;
  kind: LogEntryKind;
  entry: string;
}

/** Writes entries waiting to be sequenced, in the caller's transaction (the certificate's). */
export async function insertLogEntries(trx: Executor, entries: readonly NewLogEntry[]): Promise<void> {
  if (entries.length === 0) return;
  await sql`
    INSERT INTO transparency_log_entries (certificate_id, kind, entry)
    SELECT * FROM unnest(${arrayLiteral(entries.map((e) => e.certificateId))}::uuid[], ${arrayLiteral(entries.map((e) => e.kind))}::text[],
                         ${arrayLiteral(entries.map((e) => e.entry))}::text[])`.execute(trx);
}

export interface LogStateRow {
  tree_size: number;
  published_size: number | null;
  sequencer: string | null;
  /** The lease has not run out (the database's clock). */
  lease_live: boolean;
  /** Milliseconds the lease has left (negative once run out; null without a lease). */
  lease_left_ms: number | null;
  sequencer_session: string | null;
  /** Whether the holder's listening session is still connected; null when it has none (PGlite). */
  session_alive: boolean | null;
}

const STATE_COLUMNS = sql`tree_size, published_size, sequencer, sequencer_session, COALESCE(lease_until > now(), false) AS lease_live,
  (EXTRACT(EPOCH FROM (lease_until - now())) * 1000)::float8 AS lease_left_ms,
  CASE WHEN sequencer_session IS NULL THEN NULL
       ELSE EXISTS (SELECT 1 FROM pg_stat_activity WHERE application_name = sequencer_session) END AS session_alive`;

/** The state row, locked until the transaction ends: integrations are one at a time, whatever leases say. */
export async function lockLogState(trx: Executor): Promise<LogStateRow> {
  const result = await sql<LogStateRow>`SELECT ${STATE_COLUMNS} FROM transparency_log_state FOR UPDATE`.execute(trx);
  return result.rows[0]!;
}

export async function readLogState(db: Executor): Promise<LogStateRow> {
  const result = await sql<LogStateRow>`SELECT ${STATE_COLUMNS} FROM transparency_log_state`.execute(db);
  return result.rows[0]!;
}

/** Takes or renews the sequencer's lease for `leaseMs` from now (the database's clock). */
export async function holdLease(trx: Executor, sequencer: string, session: string | null, leaseMs: number): Promise<void> {
  await sql`UPDATE transparency_log_state SET sequencer = ${sequencer}, sequencer_session = ${session}::text,
    lease_until = now() + ${`${leaseMs} milliseconds`}::interval`.execute(trx);
}

/** Gives the lease up (a stopping sequencer), if it is still this one's. */
export async function releaseLease(db: Executor, sequencer: string): Promise<void> {
  await sql`UPDATE transparency_log_state SET lease_until = NULL, sequencer_session = NULL WHERE sequencer = ${sequencer}`.execute(db);
}

export interface WaitingEntry {
  id: number;
  entry: string;
}

/** The oldest entries not sequenced yet. */
export async function readWaitingEntries(trx: Executor, limit: number): Promise<WaitingEntry[]> {
  const result = await sql<WaitingEntry>`SELECT id, entry FROM transparency_log_entries WHERE log_index IS NULL ORDER BY id LIMIT ${limit}`.execute(trx);
  return result.rows;
}

/** Entry texts of log indexes [from, to), in order. */
export async function readEntryTexts(db: Executor, from: number, to: number): Promise<string[]> {
  if (to <= from) return [];
  const result = await sql<{ entry: string }>`
    SELECT entry FROM transparency_log_entries WHERE log_index >= ${from} AND log_index < ${to} ORDER BY log_index`.execute(db);
  if (result.rows.length !== to - from) throw new Error(`log entries ${from}..${to} are not all sequenced`);
  return result.rows.map((r) => r.entry);
}

/**
 * The stored hashes of levels ≥ 1 that the open (rightmost) tiles of a tree of `size` leaves hold; level 0
 * is left empty (the caller hashes the entries).
 */
export async function readOpenTileHashes(db: Executor, size: number): Promise<LevelHashes[]> {
  const levels: LevelHashes[] = [{ base: openTileBase(size, 0), hashes: [] }];
  const wanted: Array<{ level: number; from: number; to: number }> = [];
  for (let level = 1; Math.floor(size / TILE_WIDTH ** level) > 0; level++) {
    const from = openTileBase(size, level);
    const to = Math.floor(size / TILE_WIDTH ** level);
    levels[level] = { base: from, hashes: [] };
    if (to > from) wanted.push({ level, from, to });
  }
  if (wanted.length === 0) return levels;
  const conditions = wanted.map((w) => sql`(level = ${w.level} AND idx >= ${w.from} AND idx < ${w.to})`);
  const result = await sql<{ level: number; idx: number; hash: Uint8Array }>`
    SELECT level, idx, hash FROM transparency_log_hashes WHERE ${sql.join(conditions, sql` OR `)} ORDER BY level, idx`.execute(db);
  for (const row of result.rows) levels[row.level]!.hashes.push(bytes(row.hash));
  for (const w of wanted) {
    if (levels[w.level]!.hashes.length !== w.to - w.from) throw new Error(`stored hashes of level ${w.level} ${w.from}..${w.to} are missing`);
  }
  return levels;
}

export interface Integration {
  /** The sequenced entries: their row id, log index and audit path (hashes concatenated). */
  entries: Array<{ id: number; index: number; proof: Buffer }>;
  hashes: CompletedHash[];
  checkpoint: { size: number; root: Buffer; note: string };
}

/** Records a batch: indexes and proofs, the completed hashes, the signed checkpoint, the new size. */
export async function recordIntegration(trx: Executor, integration: Integration): Promise<void> {
  const { entries, hashes, checkpoint } = integration;
  if (entries.length > 0) {
    const updated = await sql<{ id: number }>`
      UPDATE transparency_log_entries e SET log_index = v.log_index, checkpoint_size = ${checkpoint.size}, inclusion_proof = decode(v.proof, 'hex')
      FROM unnest(${arrayLiteral(entries.map((e) => String(e.id)))}::bigint[], ${arrayLiteral(entries.map((e) => String(e.index)))}::bigint[],
                  ${arrayLiteral(entries.map((e) => e.proof.toString('hex')))}::text[]) AS v(id, log_index, proof)
      WHERE e.id = v.id AND e.log_index IS NULL
      RETURNING e.id`.execute(trx);
    // Every entry of the batch, or the transaction (and its checkpoint) is thrown away.
    if (updated.rows.length !== entries.length) throw new Error(`sequenced ${updated.rows.length} of ${entries.length} entries; the batch is rolled back`);
  }
  if (hashes.length > 0) {
    await sql`
      INSERT INTO transparency_log_hashes (level, idx, hash)
      SELECT level, idx, decode(hash, 'hex') FROM unnest(${arrayLiteral(hashes.map((h) => String(h.level)))}::smallint[],
        ${arrayLiteral(hashes.map((h) => String(h.index)))}::bigint[], ${arrayLiteral(hashes.map((h) => h.hash.toString('hex')))}::text[]) AS v(level, idx, hash)`.execute(trx);
  }
  await insertCheckpoint(trx, checkpoint);
  await sql`UPDATE transparency_log_state SET tree_size = ${checkpoint.size}`.execute(trx);
}

export async function insertCheckpoint(trx: Executor, checkpoint: { size: number; root: Buffer; note: string }): Promise<void> {
  await sql`INSERT INTO transparency_log_checkpoints (tree_size, root_hash, note) VALUES (${checkpoint.size}, ${checkpoint.root}, ${checkpoint.note})`.execute(trx);
}

export async function hasCheckpoint(db: Executor, size: number): Promise<boolean> {
  const result = await sql<{ one: number }>`SELECT 1 AS one FROM transparency_log_checkpoints WHERE tree_size = ${size}`.execute(db);
  return result.rows.length > 0;
}

export interface CheckpointRow {
  tree_size: number;
  note: string;
}

/** Signed checkpoints larger than `size` (every one when null), smallest first. */
export async function readCheckpointsAfter(db: Executor, size: number | null): Promise<CheckpointRow[]> {
  const result = await sql<CheckpointRow>`
    SELECT tree_size, note FROM transparency_log_checkpoints WHERE tree_size > ${size ?? -1} ORDER BY tree_size`.execute(db);
  return result.rows;
}

export async function readCheckpoint(db: Executor, size: number): Promise<CheckpointRow | undefined> {
  const result = await sql<CheckpointRow>`SELECT tree_size, note FROM transparency_log_checkpoints WHERE tree_size = ${size}`.execute(db);
  return result.rows[0];
}

/** Records that object storage has everything up to `size` (never moves back). */
export async function markPublished(db: Executor, size: number): Promise<void> {
  await sql`UPDATE transparency_log_state SET published_size = ${size} WHERE published_size IS NULL OR published_size < ${size}`.execute(db);
}

/** Entries written but not yet in a checkpoint object storage has (the sequencer's backlog). */
export async function countUnpublishedEntries(db: Executor): Promise<number> {
  const result = await sql<{ n: number }>`
    SELECT count(*) AS n FROM transparency_log_entries
    WHERE log_index IS NULL OR log_index >= COALESCE((SELECT published_size FROM transparency_log_state), 0)`.execute(db);
  return result.rows[0]!.n;
}

export interface LogKeyRow {
  name: string;
  public_key: Buffer;
  private_key: string;
  encrypted: boolean;
}

export async function readLogKey(db: Executor): Promise<LogKeyRow | undefined> {
  const result = await sql<{ name: string; public_key: Uint8Array; private_key: string; encrypted: boolean }>`
    SELECT name, public_key, private_key, encrypted FROM transparency_log_keys`.execute(db);
  const row = result.rows[0];
  return row && { ...row, public_key: bytes(row.public_key) };
}

/** Stores the log's key unless one exists (two instances starting at once keep the first). */
export async function insertLogKey(db: Executor, row: LogKeyRow): Promise<void> {
  await sql`INSERT INTO transparency_log_keys (name, public_key, private_key, encrypted)
    VALUES (${row.name}, ${row.public_key}, ${row.private_key}, ${row.encrypted}) ON CONFLICT (id) DO NOTHING`.execute(db);
}
