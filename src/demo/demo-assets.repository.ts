/**
 * The demo's orders as if uploaded: each accepted demo order's asset is its preview PNG, which the seed
 * already puts in object storage. Without it a seeded order has no original bytes, and `Certify` (whose
 * certificate names the bytes' SHA-256) would refuse every demo order in the review queue with 409: a
 * newcomer trying the queue would hit that first (docs/review.md "Demo data"). DEMO-ONLY.
 */
import type { Executor } from '../storage/database.js';

/**
 * Makes the preview the asset of every order of `organizationIds` that has a preview and no asset yet.
 * Idempotent (a second run changes nothing; orders uploaded through the API keep their own file).
 * @returns the number of orders changed.
 */
export async function useDemoPreviewsAsAssets(db: Executor, organizationIds: readonly string[]): Promise<number> {
  if (organizationIds.length === 0) return 0;
  const result = await db
    .updateTable('orders')
    .set((eb) => ({ asset_key: eb.ref('asset_preview_key'), asset_content_type: 'image/png' }))
    .where('organization_id', 'in', [...organizationIds])
    .where('asset_key', 'is', null)
    .where('asset_preview_key', 'is not', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
