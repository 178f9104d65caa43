/**
 * The `cleanup` job: deletes unused uploads (bytes, then rows) an hour after they expired, Idempotency-Key
 * records past their 24 hours, finished jobs after a week, and settled webhook events (with their delivery
 * logs) after 30 days. Queued by every worker every few minutes
 * under one singleton key, so a fleet runs it once at a time.
 */
import { CLEANUP_JOB } from '../background/job-kinds.js';
import type { JobHandler } from '../background/job-handler.js';
import { deleteFinishedJobs } from '../background/jobs.repository.js';
import type { Db } from '../../storage/database.js';
import type { ObjectStorage } from '../../storage/object-storage/index.js';
import type { Clock } from '../time/clock.js';
import { deleteExpiredUploadRows, listExpiredUploads } from './upload.repository.js';
import { deleteExpiredIdempotencyKeys } from './idempotency.repository.js';
import { deleteSettledWebhookEvents } from '../webhooks/webhook.repository.js';

export { CLEANUP_JOB };
/** An expired upload's bytes may still be arriving (a PUT that started just before expiry). */
const UPLOAD_GRACE_MS = 3_600_000;
const FINISHED_JOB_RETENTION_MS = 7 * 86_400_000;
/** Webhook events and their delivery logs (none pending) are kept this long (docs/webhooks.md). */
export const WEBHOOK_EVENT_RETENTION_MS = 30 * 86_400_000;
const BATCH = 500;

/** Some uploads' bytes could not be deleted: their rows stay, and the next run tries them again. */
export class UploadCleanupError extends Error {
  override name = 'UploadCleanupError';
  constructor(
    readonly failedKeys: string[],
    cause: unknown,
  ) {
    super(`could not delete ${failedKeys.length} expired upload object(s); their rows are kept for the next run`, { cause });
  }
}

export function cleanupJob(deps: { db: Db; clock: Clock; storage: ObjectStorage; batchSize?: number }): JobHandler {
  const batchSize = deps.batchSize ?? BATCH;
  return {
    async run(_payload, { signal }) {
      const now = deps.clock.now().getTime();
      const before = new Date(now - UPLOAD_GRACE_MS);
      const failed: string[] = [];
      let firstError: unknown;
      let cursor: string | null = null;
      for (;;) {
        signal.throwIfAborted();
        // Bytes first, then rows: the row is what finds the bytes, so it goes only once they are gone. A
        // delete that fails keeps its row (the next run retries it); deleting a missing object is fine, so
        // a run that died between the two steps just deletes nothing again. Expired uploads cannot be
        // claimed (a claim needs an unexpired upload), so no order can start using one meanwhile.
        const batch = await listExpiredUploads(deps.db, before, cursor, batchSize);
        const gone: string[] = [];
        for (const upload of batch) {
          try {
            await deps.storage.delete(upload.object_key);
            gone.push(upload.upload_id);
          } catch (err) {
            failed.push(upload.object_key);
            firstError ??= err;
          }
        }
        await deleteExpiredUploadRows(deps.db, gone, before);
        if (batch.length < batchSize) break;
        cursor = batch.at(-1)!.upload_id;
      }
      await deleteExpiredIdempotencyKeys(deps.db, new Date(now));
      await deleteFinishedJobs(deps.db, FINISHED_JOB_RETENTION_MS);
      await deleteSettledWebhookEvents(deps.db, WEBHOOK_EVENT_RETENTION_MS);
      // Reported after the rest of the cleanup ran: the job ends failed (visible), and the next run retries.
      if (failed.length > 0) throw new UploadCleanupError(failed, firstError);
    },
  };
}
