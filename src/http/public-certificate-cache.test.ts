/**
 * The bounds of the public certificate cache, with time moved by hand (ManualClock) and the database and
 * the change feed replaced by counters: what is served from memory, for how long, and what forces a read.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../../test/helpers/manual-clock.js';
import type { CertificateRow } from '../domain/certificates/index.js';
import { admitAtRandom, FULL_ADMISSION_RATE, PublicCertificateCache, renderPublicCertificate } from './public-certificate-cache.js';

const ID = '3f0c5c9e-7d55-4a5e-9b55-0c8a2d1e4f11';
const OTHER = '3f0c5c9e-7d55-4a5e-9b55-0c8a2d1e4f12';
const TTL = 60_000;

/** A published log entry of the row's JSON (domain/transparency-log/certificate-log.ts). */
function logged(kind: 'issued' | 'revoked', index: number) {
  const proof = 'ab'.repeat(32) + 'cd'.repeat(32);
  return { kind, index, entry: `{"at":"2026-11-26T08:51:03.120Z","certificate_sha256":"${'0'.repeat(64)}","type":"certificate.${kind}"}`, proof, checkpoint: `certdesk.example/log\n${index + 2}\n${'A'.repeat(43)}=\n\n\u2014 certdesk.example/log AAAA\n` };
}

function row(id: string, revokedAt: Date | null = null, log: 'logged' | 'pending' = 'logged'): CertificateRow {
  const entries = log === 'pending' ? null : [logged('issued', 3), ...(revokedAt ? [logged('revoked', 9)] : [])];
  return {
    certificate_id: id,
    order_id: `ord_${id.slice(-4)}`,
    organization_id: 'be9c0000-0000-4000-8000-000000000001',
    kid: 'k1',
    jws: 'eyJhbGciOiJFUzI1NiJ9.e30.c2ln',
    asset_name: 'harbour <1>.png',
    asset_sha256: 'e3b8efbb49455ac9d792558aaed5d1592ac8e0952ae3a28fef7b9e05b56eb05f',
    asset_media_type: 'image/png',
    verify_url: `https://certdesk.example/verify/${id}`,
    issued_at: new Date('2026-11-26T08:51:03.120Z'),
    issued_by: 'reviewer@certifier.test',
    revoked_at: revokedAt,
    revocation_reason: revokedAt ? 'Evidence of generation' : null,
    revoked_by: revokedAt ? 'system:operator' : null,
    content_credentials: 'pending',
    content_credentials_key: null,
    content_credentials_note: null,
    transparency_log: entries && JSON.stringify(entries),
  };
}

/** A database of rows by id that counts its reads, and a feed whose health the test sets. */
function setup(options: { maxBytes?: number; healthy?: boolean; admitWhenFull?: () => boolean } = {}) {
  const clock = new ManualClock();
  const rows = new Map<string, CertificateRow>([[ID, row(ID)], [OTHER, row(OTHER)]]);
  const state = { reads: 0, statements: [] as string[][], healthy: options.healthy ?? true };
  const cache = new PublicCertificateCache({
    loadMany: async (ids) => {
      state.reads += ids.length;
      state.statements.push(ids);
      return new Map(ids.flatMap((id) => (rows.has(id) ? [[id, rows.get(id)!] as const] : [])));
    },
    clock: clock.now,
    ttlMs: TTL,
    maxBytes: options.maxBytes ?? 1024 * 1024,
    feed: { isHealthy: () => state.healthy },
    admitWhenFull: options.admitWhenFull ?? (() => true),
  });
  return { clock, rows, state, cache };
}

describe('public certificate cache', () => {
  it('serves a read answer from memory until the TTL has passed, then reads again', async () => {
    const { clock, state, cache } = setup();
    const first = await cache.get(ID);
    assert.equal(first?.status, 'valid');
    assert.equal(state.reads, 1);
    clock.advance(TTL);
    assert.equal(await cache.get(ID), first, 'at exactly the TTL: still the same answer');
    assert.equal(state.reads, 1);
    clock.advance(1);
    await cache.get(ID);
    assert.equal(state.reads, 2, 'one millisecond past the TTL: read again');
  });

  it('an answer the transparency log does not have yet is never kept: the next request reads again', async () => {
    const { state, rows, cache } = setup();
    rows.set(ID, row(ID, null, 'pending'));
    assert.equal((await cache.get(ID))?.etag, `"${ID}-valid"`);
    assert.equal(cache.peek(ID), null, 'not kept while its issuance is not in the log');
    rows.set(ID, row(ID));
    const logged = await cache.get(ID);
    assert.equal(logged?.etag, `"${ID}-valid-log3"`, 'the first read after sequencing shows it');
    assert.equal(state.reads, 2);
    assert.equal(cache.peek(ID), logged, 'kept once logged');
    // A revocation (announced: the row changed) whose entry is not sequenced yet: read anew until it is.
    const revokedAt = new Date('2026-11-27T10:00:00.000Z');
    rows.set(ID, { ...row(ID, revokedAt), transparency_log: JSON.stringify([logged && JSON.parse(row(ID).transparency_log!)[0]]) });
    cache.invalidate(ID);
    const pendingRevocation = await cache.get(ID);
    assert.equal(pendingRevocation?.status, 'revoked');
    assert.equal(cache.peek(ID), null, 'a revocation the log does not have yet is not kept');
    rows.set(ID, row(ID, revokedAt));
    assert.equal((await cache.get(ID))?.etag, `"${ID}-revoked-${revokedAt.getTime()}-log3-9"`);
    assert.notEqual(cache.peek(ID), null);
  });

  it('a change notification drops the certificate: the next request reads the revoked row', async () => {
    const { rows, state, cache } = setup();
    const valid = await cache.get(ID);
    await cache.get(OTHER);
    rows.set(ID, row(ID, new Date('2026-11-26T09:00:00Z')));
    assert.equal((await cache.get(ID))?.status, 'valid', 'not announced yet: the kept answer');
    cache.invalidate(ID);
    const revoked = await cache.get(ID);
    assert.equal(revoked?.status, 'revoked');
    assert.notEqual(revoked?.etag, valid?.etag);
    assert.notEqual(revoked?.badgeEtag, valid?.badgeEtag);
    assert.match(revoked!.badge.toString(), />Revoked</);
    assert.equal(state.reads, 3);
    await cache.get(OTHER);
    assert.equal(state.reads, 3, 'other certificates stay kept');
  });

  it('ids are matched whatever their case (notifications name them in lower case)', async () => {
    const { state, cache } = setup();
    await cache.get(ID.toUpperCase());
    cache.invalidate(ID);
    await cache.get(ID.toUpperCase());
    assert.equal(state.reads, 2);
  });

  it('a read that an invalidation overtook is not kept (its row may predate the change)', async () => {
    const clock = new ManualClock();
    let release: ((r: CertificateRow) => void) | undefined;
    let reads = 0;
    const cache = new PublicCertificateCache({
      loadMany: ([id]) => {
        reads++;
        const read = reads === 1 ? new Promise<CertificateRow>((resolve) => (release = resolve)) : Promise.resolve(row(id!, new Date()));
        return read.then((r) => new Map([[id!, r]]));
      },
      clock: clock.now,
      ttlMs: TTL,
      maxBytes: 1024 * 1024,
      feed: { isHealthy: () => true },
    });
    const pending = cache.get(ID);
    while (!release) await new Promise((resolve) => setImmediate(resolve)); // the read has been sent
    cache.invalidate(ID); // the notification arrives while the (older) read is in flight
    release!(row(ID));
    assert.equal((await pending)?.status, 'valid', 'the request itself gets what it read');
    assert.equal(cache.size, 0, 'but it is not kept');
    assert.equal((await cache.get(ID))?.status, 'revoked');
    assert.equal(reads, 2);
  });

  it('nothing is served from memory while the change feed is unhealthy; a reset empties it', async () => {
    const { state, cache } = setup();
    await cache.get(ID);
    state.healthy = false;
    await cache.get(ID);
    await cache.get(ID);
    assert.equal(state.reads, 3, 'every request reads the database');
    state.healthy = true;
    cache.clear(); // what the listener does when its connection is back
    await cache.get(ID);
    assert.equal(state.reads, 4);
    await cache.get(ID);
    assert.equal(state.reads, 4);
  });

  it('unknown ids are never kept, malformed ids never read', async () => {
    const { state, cache } = setup();
    const unknown = '00000000-0000-4000-8000-000000000000';
    assert.equal(await cache.get(unknown), null);
    assert.equal(await cache.get(unknown), null);
    assert.equal(state.reads, 2);
    assert.equal(await cache.get('not-a-uuid'), null);
    assert.equal(await cache.get(`${ID}/../x`), null);
    assert.equal(state.reads, 2);
    assert.equal(cache.size, 0);
  });

  it('holds at most maxBytes of rendered answers, least recently used out first', async () => {
    const one = renderPublicCertificate(row(ID));
    const entryBytes = one.bytes + 200;
    const { state, cache } = setup({ maxBytes: Math.floor(entryBytes * 1.5) });
    await cache.get(ID);
    await cache.get(OTHER);
    assert.equal(cache.size, 1, 'room for one');
    await cache.get(OTHER);
    assert.equal(state.reads, 2, 'the most recent is kept');
    await cache.get(ID);
    assert.equal(state.reads, 3, 'the older one was evicted');
  });

  it('once full, keeps a read answer only when admitted, and then evicts the least recently used', async () => {
    const entryBytes = renderPublicCertificate(row(ID)).bytes + 200;
    let admit = false;
    const { state, cache } = setup({ maxBytes: Math.floor(entryBytes * 1.5), admitWhenFull: () => admit });
    await cache.get(ID);
    assert.equal(cache.size, 1, 'kept while there was room, whatever admission says');
    await cache.get(OTHER);
    await cache.get(ID);
    assert.equal(state.reads, 2, 'the full cache kept what it had: the first one is still served from memory');
    await cache.get(OTHER);
    assert.equal(state.reads, 3, 'the refused one is read again');
    admit = true;
    await cache.get(OTHER);
    await cache.get(OTHER);
    assert.equal(state.reads, 4, 'admitted: kept');
    await cache.get(ID);
    assert.equal(state.reads, 5, 'the least recently used one made room for it');
  });

  it('charges an entry again when it renders a representation: the growth pushes the least recently used out', async () => {
    const fresh = renderPublicCertificate(row(ID)).bytes;
    const grown = renderPublicCertificate(row(ID));
    void grown.json;
    void grown.badge;
    assert.ok(grown.bytes > fresh, 'rendering holds more');
    assert.ok(grown.bytes >= grown.json.length + grown.badge.length, 'the estimate covers what is rendered');
    // Room for two fresh entries, not for a grown one beside a fresh one.
    const { state, cache } = setup({ maxBytes: 2 * (fresh + 200) + 10 });
    const first = await cache.get(ID);
    await cache.get(OTHER);
    assert.equal(cache.size, 2);
    void first!.json;
    void first!.badge;
    assert.equal(cache.size, 1, 'the grown entry took the room of the least recently used');
    assert.equal(cache.peek(ID), first, 'and is still kept');
    await cache.get(OTHER);
    assert.equal(state.reads, 3, 'the other one was pushed out');
  });

  it('by default admits an answer read while full when a random draw falls below FULL_ADMISSION_RATE', () => {
    const draws = [0, FULL_ADMISSION_RATE / 2, FULL_ADMISSION_RATE, 0.99];
    const admit = admitAtRandom(() => draws.shift()!);
    assert.deepEqual([admit(), admit(), admit(), admit()], [true, true, false, false]);
    assert.ok(FULL_ADMISSION_RATE > 0 && FULL_ADMISSION_RATE <= 0.1, 'a small share: little churn, yet a hot certificate gets in soon');
  });

  it('keeps nothing without a change feed (PGlite) or with no memory', async () => {
    for (const options of [{ feed: null, maxBytes: 1024 * 1024 }, { feed: { isHealthy: () => true }, maxBytes: 0 }]) {
      let reads = 0;
      const cache = new PublicCertificateCache({
        loadMany: async (ids) => {
          reads += ids.length;
          return new Map(ids.map((id) => [id, row(id)]));
        },
        clock: new ManualClock().now,
        ttlMs: TTL,
        ...options,
      });
      await cache.get(ID);
      await cache.get(ID);
      assert.equal(reads, 2);
    }
  });

  it('concurrent reads share one statement; each request still gets its own answer', async () => {
    const { state, cache } = setup({ healthy: false });
    const unknown = '00000000-0000-4000-8000-000000000000';
    const answers = await Promise.all([cache.get(ID), cache.get(OTHER), cache.get(ID.toUpperCase()), cache.get(unknown)]);
    assert.deepEqual(state.statements, [[ID, OTHER, unknown]], 'one read, each id once');
    assert.deepEqual(answers.map((a) => a?.status ?? null), ['valid', 'valid', 'valid', null]);
    assert.match(answers[1]!.json.toString(), new RegExp(OTHER));
    await cache.get(ID);
    assert.equal(state.statements.length, 2, 'a later request: a read of its own');
  });

  it('a failed read fails every request that shared it, and the next one reads again', async () => {
    let calls = 0;
    const cache = new PublicCertificateCache({
      loadMany: async (ids) => {
        if (++calls === 1) throw new Error('database unavailable');
        return new Map(ids.map((id) => [id, row(id)]));
      },
      clock: new ManualClock().now,
      ttlMs: TTL,
      maxBytes: 1024 * 1024,
      feed: { isHealthy: () => true },
    });
    const results = await Promise.allSettled([cache.get(ID), cache.get(OTHER)]);
    assert.deepEqual(results.map((r) => r.status), ['rejected', 'rejected']);
    assert.equal((await cache.get(ID))?.status, 'valid');
  });

  it('renders exactly what the API and the badge answer', () => {
    const answer = renderPublicCertificate(row(ID));
    const body = JSON.parse(answer.json.toString()) as Record<string, unknown>;
    assert.deepEqual(Object.keys(body), ['certificate_id', 'status', 'issued_at', 'revoked_at', 'revocation_reason', 'asset_name', 'asset_sha256', 'jws', 'verify_url', 'content_credentials', 'transparency_log']);
    assert.equal(body.issued_at, '2026-11-26T08:51:03.120Z');
    assert.equal(answer.etag, `"${ID}-valid-log3"`);
    assert.equal(answer.badgeEtag, `"${ID}-valid-log3-badge"`);
    const log = body.transparency_log as { origin: string; issued: { index: number; inclusion_proof: string[] }; revoked: null };
    assert.equal(log.origin, 'certdesk.example/log');
    assert.equal(log.issued.index, 3);
    assert.deepEqual(log.issued.inclusion_proof, [Buffer.alloc(32, 0xab).toString('base64'), Buffer.alloc(32, 0xcd).toString('base64')]);
    assert.equal(log.revoked, null);
    assert.equal(renderPublicCertificate(row(ID, null, 'pending')).etag, `"${ID}-valid"`);
    assert.match(answer.badge.toString(), /harbour &lt;1&gt;\.png/);
  });
});
