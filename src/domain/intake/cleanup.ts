/**
 * The `cleanup` job: deletes unused uploads (rows and bytes) an hour after they expired, Idempotency-Key
 * records past their 24 hours, and finished jobs after a week. Queued by every worker every few minutes
 * under one singleton key, so a fleet runs it once at a time.
 */
import { CLEANUP_JOB } from '../background/job-kinds.js';
import type { JobHandler } from '../background/job-handler.js';
import { deleteFinishedJobs } from '../background/jobs.repository.js';
import type { Db } from '../../storage/database.js';
import type { ObjectStorage } from '../../storage/object-storage/index.js';
import type { Clock } from '../time/clock.js';
import { deleteExpiredUploads } from './upload.repository.js';
import { deleteExpiredIdempotencyKeys } from './idempotency.repository.js';

export { CLEANUP_JOB };
/** An expired upload's bytes may still be arriving (a PUT that started just before expiry). */
const UPLOAD_GRACE_MS = 3_600_000;
const FINISHED_JOB_RETENTION_MS = 7 * 86_400_000;

export function cleanupJob(deps: { db: Db; clock: Clock; storage: ObjectStorage }): JobHandler {
  return {
    async run(_payload, { signal }) {
      const now = deps.clock.now().getTime();
      for (;;) {
        signal.throwIfAborted();
        // Rows first, then bytes: a crash between the two leaves bytes without a row only for keys that
        // nothing references any more (and a re-run of the upload's PUT is refused by then: it expired).
        const keys = await deleteExpiredUploads(deps.db, new Date(now - UPLOAD_GRACE_MS), 500);
        for (const key of keys) await deps.storage.delete(key);
        if (keys.length < 500) break;
      }
      await deleteExpiredIdempotencyKeys(deps.db, new Date(now));
      await deleteFinishedJobs(deps.db, FINISHED_JOB_RETENTION_MS);
    },
  };
}
