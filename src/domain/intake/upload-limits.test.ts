/**
 * UploadLimits on a real database, with the rate counted in the shared store: two instances (two
 * UploadLimits over one store) count together. Redis when TEST_REDIS_URL is set (a key prefix of its own),
 * else the in-process store. A store that fails lets uploads through.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { after, before, it } from 'node:test';
import { describeOnEachDatabase } from '../../../test/helpers/database.js';
import { ACME, loadStandardFixture, temporaryObjectStorage, USERS } from '../../../test/helpers/fixtures.js';
import { MemoryFailureStore, RedisFailureStore, type FailureStore } from '../../rate-limit/index.js';
import type { Principal } from '../principal.js';
import { ManualClock } from '../time/clock.js';
import { UploadLimitError, UploadLimits } from './upload-limits.js';

const redisUrl = process.env.TEST_REDIS_URL;
const settings = { maxOutstandingUploads: 100, maxOutstandingUploadBytes: 1e9, uploadRateLimit: 4, uploadRateWindowSeconds: 60 };

describeOnEachDatabase(`upload limits (rate store: ${redisUrl ? 'Redis' : 'memory'})`, (getDb) => {
  let store: FailureStore;
  let principal: Principal;
  const clock = new ManualClock(Date.now());

  let dir: string;
  before(async () => {
    const objects = temporaryObjectStorage();
    dir = objects.dir;
    await loadStandardFixture(getDb(), objects.storage);
    store = redisUrl ? new RedisFailureStore(redisUrl, `certdesk-test:${randomUUID()}:`) : new MemoryFailureStore();
    const user = await getDb().db.selectFrom('users').select('id').where('email', '=', USERS.loner.email).executeTakeFirstOrThrow();
    principal = { userId: user.id, organizationId: ACME.id } as Principal;
  });
  after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('two instances share one rate window; Retry-After is the rest of the window', async () => {
    const a = new UploadLimits(getDb().db, clock, settings, store);
    const b = new UploadLimits(getDb().db, clock, settings, store);
    await a.admitUpload(principal, 1);
    await b.admitUpload(principal, 1);
    await a.admitUpload(principal, 1);
    clock.advance(15_000);
    await b.admitUpload(principal, 1);
    for (const limits of [a, b]) {
      await assert.rejects(limits.admitUpload(principal, 1), (err: unknown) => {
        assert.ok(err instanceof UploadLimitError);
        assert.equal(err.rule, 'rate');
        assert.equal(err.statusCode, 429);
        assert.equal(err.headers['Retry-After'], '45');
        return true;
      });
    }
    clock.advance(45_000);
    await a.admitUpload(principal, 1);
  });

  it('a rate store that fails lets the upload through and reports it', async () => {
    const errors: unknown[] = [];
    const broken = { increment: async () => Promise.reject(new Error('store down')) };
    await new UploadLimits(getDb().db, clock, settings, broken, (err) => errors.push(err)).admitUpload(principal, 1);
    assert.equal(errors.length, 1);
  });
});
