import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { databaseTargets } from '../../test/helpers/database.js';
import { copyRowsInTransaction } from './bulk-copy.js';
import { BinaryCopyEncoder, type CopyColumnType } from './copy-binary.js';
import type { DatabaseHandle } from './database.js';

/** The int64 a single timestamptz row encodes to. */
function timestampMicros(value: string): bigint {
  const enc = new BinaryCopyEncoder(['timestamptz']);
  enc.row([value]);
  const bytes = enc.take()!;
  assert.equal(bytes.readInt16BE(0), 1, 'field count');
  assert.equal(bytes.readInt32BE(2), 8, 'field length');
  return bytes.readBigInt64BE(6);
}

describe('binary COPY encoding', () => {
  it('writes the signature header, and -1 as the trailer', () => {
    assert.equal(BinaryCopyEncoder.header.subarray(0, 11).toString('latin1'), 'PGCOPY\n\xff\r\n\0');
    assert.equal(BinaryCopyEncoder.header.length, 19);
    assert.equal(BinaryCopyEncoder.trailer.readInt16BE(0), -1);
  });

  it('writes lengths, NULL as -1, text as UTF-8, jsonb with its version byte, uuid as 16 bytes', () => {
    const enc = new BinaryCopyEncoder(['text', 'text', 'jsonb', 'uuid']);
    enc.row(['é\t\\', null, '[]', '0A0A0A0A-0000-4000-8000-00000000000a']);
    const b = enc.take()!;
    assert.equal(b.readInt16BE(0), 4);
    assert.equal(b.readInt32BE(2), 4);
    assert.equal(b.toString('utf8', 6, 10), 'é\t\\');
    assert.equal(b.readInt32BE(10), -1);
    assert.equal(b.readInt32BE(14), 3);
    assert.deepEqual([...b.subarray(18, 21)], [1, 0x5b, 0x5d]);
    assert.equal(b.readInt32BE(21), 16);
    assert.equal(b.subarray(25, 41).toString('hex'), '0a0a0a0a00004000800000000000000a');
    assert.equal(b.length, 41);
    assert.equal(enc.take(), null, 'nothing pending after a take');
  });

  it('writes timestamps as microseconds since 2000-01-01 UTC, exactly, far from 2000 too', () => {
    assert.equal(timestampMicros('2000-01-01T00:00:00Z'), 0n);
    assert.equal(timestampMicros('2000-01-01T00:00:00.000001Z'), 1n);
    assert.equal(timestampMicros('1999-12-31T23:59:59.999999Z'), -1n);
    assert.equal(timestampMicros('2026-05-31T23:59:41.5Z'), 833_587_181_500_000n);
    assert.equal(timestampMicros('2026-05-31T23:59:41.123456Z'), 833_587_181_123_456n);
    assert.equal(timestampMicros('1970-01-01T00:00:00Z'), -946_684_800_000_000n);
    // Beyond 2^53 microseconds: the exact (BigInt) path.
    assert.equal(timestampMicros('9999-12-31T23:59:59.999999Z'), 252_455_615_999_999_999n);
    assert.equal(timestampMicros('0001-01-01T00:00:00.000001Z'), -63_082_281_599_999_999n);
  });

  it('refuses values its type cannot take instead of writing garbage', () => {
    const enc = new BinaryCopyEncoder(['uuid', 'timestamptz']);
    assert.throws(() => enc.row(['not-a-uuid', '2026-01-01T00:00:00Z']), /not a uuid/);
    assert.throws(() => enc.row(['0a0a0a0a-0000-4000-8000-00000000000a', '2026-01-01T00:00:00+01:00']), /not an RFC 3339 UTC timestamp/);
    assert.throws(() => enc.row(['0a0a0a0a-0000-4000-8000-00000000000a', '2026-01-01T00:00:00.1234567Z']), /not an RFC 3339 UTC timestamp/);
    assert.throws(() => enc.row(['0a0a0a0a-0000-4000-8000-00000000000a']), /1 values for 2 columns/);
  });

  it('never splits a row across chunks, and grows for a row larger than a chunk', () => {
    const enc = new BinaryCopyEncoder(['text'], 64);
    const big = 'x'.repeat(200);
    enc.row(['a'.repeat(40)]);
    enc.row([big]);
    enc.row(['b']);
    const b = enc.take()!;
    assert.equal(b.length, 3 * 6 + 40 + 200 + 1);
    assert.equal(b.readInt32BE(2 + 4 + 40 + 2), 200);
  });
});

const postgres = databaseTargets().find((t) => t.name === 'postgres');

describe('binary COPY against the server', { skip: postgres ? false : 'needs TEST_DATABASE_URL' }, () => {
  let handle: DatabaseHandle;
  const types: CopyColumnType[] = ['text', 'uuid', 'timestamptz', 'text', 'jsonb', 'json'];
  const rows: Array<Array<string | null>> = [
    ['plain', '0a0a0a0a-0000-4000-8000-00000000000a', '2026-05-31T23:59:41.123456Z', null, '[{"layer_name":"a\\tb","key":"k"}]', '{"t":"tab\\there, newline\\n, backslash \\\\ and quote \\""}'],
    ['tab\there\nnewline\r\\', '0A0A0A0A-0000-4000-8000-00000000000B', '1969-07-20T20:17:40Z', 'ünï 😀 ✓', '[]', '{"emoji":"😀","raw":"ünï"}'],
    ['far', '0a0a0a0a-0000-4000-8000-00000000000c', '9999-12-31T23:59:59.999999Z', '', '{"nested":{"a":[1,2.5,null,true]}}', '[]'],
  ];

  before(async () => {
    handle = await postgres!.open();
    for (const t of ['binary_rows', 'inserted_rows']) {
      await handle.pgPool!.query(`CREATE TABLE ${t} (n serial, a text, u uuid, ts timestamptz, b text, jb jsonb, j json)`);
    }
  });
  after(async () => {
    await handle?.close();
  });

  it('stores exactly what an INSERT of the same values stores, across segments', async () => {
    const batches = async function* () {
      yield rows.slice(0, 2);
      yield rows.slice(2);
    };
    assert.equal(await copyRowsInTransaction(handle, batches(), { sql: 'COPY binary_rows (a, u, ts, b, jb, j) FROM STDIN', rowsPerSegment: 2, columnTypes: types }), 3);
    // The oracle: the server's own text input of each value, as parameters of a plain INSERT.
    for (const row of rows) await handle.pgPool!.query('INSERT INTO inserted_rows (a, u, ts, b, jb, j) VALUES ($1, $2, $3, $4, $5, $6)', row);
    const read = async (t: string) =>
      (await handle.pgPool!.query(`SELECT a, u::text, to_char(ts AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') AS ts, b, jb::text, j::text FROM ${t} ORDER BY n`)).rows;
    const binary = await read('binary_rows');
    assert.deepEqual(binary, await read('inserted_rows'));
    assert.equal(binary[0].ts, '2026-05-31 23:59:41.123456');
    assert.equal(binary[1].a, 'tab\there\nnewline\r\\');
    assert.equal(binary[1].u, '0a0a0a0a-0000-4000-8000-00000000000b');
    assert.equal(binary[2].ts, '9999-12-31 23:59:59.999999');
    assert.equal(binary[2].b, '');
  });
});
