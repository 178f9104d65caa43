/** SQL of uploads (table `uploads`, migrations/0002). */
import type { Selectable } from 'kysely';
import type { Executor } from '../../storage/database.js';
import type { UploadsTable } from '../../storage/schema.js';

/** An upload as read back (the table's row, timestamps as Date). */
export type UploadRow = Selectable<UploadsTable>;

export async function insertUpload(db: Executor, row: Omit<UploadRow, 'used_at' | 'used_by_order'>): Promise<void> {
  await db.insertInto('uploads').values(row).execute();
}

/** One upload of a user (another user's upload is as good as unknown). */
export async function findUserUpload(db: Executor, organizationId: string, userId: string, uploadId: string): Promise<UploadRow | undefined> {
  return (await db
    .selectFrom('uploads')
    .selectAll()
    .where('upload_id', '=', uploadId)
    .where('organization_id', '=', organizationId)
    .where('user_id', '=', userId)
    .executeTakeFirst()) as UploadRow | undefined;
}

/**
 * Marks an upload used by an order, only if it is still unused and unexpired.
 * @returns false when another request used it first or it expired meanwhile.
 */
export async function claimUpload(db: Executor, uploadId: string, orderId: string, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('uploads')
    .set({ used_at: now, used_by_order: orderId })
    .where('upload_id', '=', uploadId)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Unused uploads that expired before `before`, in upload id order after `afterId` (a cursor, so a batch
 * whose bytes could not be deleted is not listed again in the same run).
 */
export async function listExpiredUploads(db: Executor, before: Date, afterId: string | null, limit: number): Promise<Array<{ upload_id: string; object_key: string }>> {
  let query = db
    .selectFrom('uploads')
    .select(['upload_id', 'object_key'])
    .where('used_at', 'is', null)
    .where('expires_at', '<', before);
  if (afterId !== null) query = query.where('upload_id', '>', afterId);
  return query.orderBy('upload_id').limit(limit).execute();
}

/**
 * Deletes the rows of expired, unused uploads (whose bytes are already gone). Idempotent: a row already
 * deleted, or one an order used meanwhile, is left alone. @returns how many rows were deleted.
 */
export async function deleteExpiredUploadRows(db: Executor, uploadIds: string[], before: Date): Promise<number> {
  if (uploadIds.length === 0) return 0;
  const result = await db
    .deleteFrom('uploads')
    .where('upload_id', 'in', uploadIds)
    .where('used_at', 'is', null)
    .where('expires_at', '<', before)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Records the size of an upload whose bytes were streamed through the service (multipart). */
export async function setUploadSize(db: Executor, uploadId: string, size: number): Promise<void> {
  await db.updateTable('uploads').set({ size }).where('upload_id', '=', uploadId).execute();
}

/** Forgets an upload whose bytes never arrived completely. */
export async function deleteUpload(db: Executor, uploadId: string): Promise<void> {
  await db.deleteFrom('uploads').where('upload_id', '=', uploadId).where('used_at', 'is', null).execute();
}

/** A user's uploads that no order used yet and that have not expired: how many, their bytes, the first to expire. */
export async function outstandingUploads(db: Executor, userId: string, now: Date): Promise<{ count: number; bytes: number; firstExpiry: Date | null }> {
  const row = await db
    .selectFrom('uploads')
    .select((eb) => [eb.fn.countAll<string>().as('count'), eb.fn.sum<string | null>('size').as('bytes'), eb.fn.min<Date | null>('expires_at').as('first_expiry')])
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirstOrThrow();
  return { count: Number(row.count), bytes: Number(row.bytes ?? 0), firstExpiry: row.first_expiry === null ? null : new Date(row.first_expiry) };
}
