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

/** Deletes unused uploads that expired before `before`; @returns their object keys (to delete the bytes). */
export async function deleteExpiredUploads(db: Executor, before: Date, limit: number): Promise<string[]> {
  const rows = await db
    .deleteFrom('uploads')
    .where('upload_id', 'in', (qb) =>
      qb.selectFrom('uploads').select('upload_id').where('used_at', 'is', null).where('expires_at', '<', before).limit(limit),
    )
    .returning('object_key')
    .execute();
  return rows.map((r) => r.object_key);
}

/** Records the size of an upload whose bytes were streamed through the service (multipart). */
export async function setUploadSize(db: Executor, uploadId: string, size: number): Promise<void> {
  await db.updateTable('uploads').set({ size }).where('upload_id', '=', uploadId).execute();
}

/** Forgets an upload whose bytes never arrived completely. */
export async function deleteUpload(db: Executor, uploadId: string): Promise<void> {
  await db.deleteFrom('uploads').where('upload_id', '=', uploadId).where('used_at', 'is', null).execute();
}
