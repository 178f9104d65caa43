/** SQL of the credentialed file's state on the certificate row (migrations/0019). */
import { sql } from 'kysely';
import type { Executor } from '../../storage/database.js';

/** What the job reads: the certificate's fields it writes into the manifest and where the upload is. */
export interface CredentialingFacts {
  certificate_id: string;
  organization_id: string;
  order_id: string;
  jws: string;
  asset_name: string;
  asset_sha256: string;
  verify_url: string;
  issued_at: Date;
  content_credentials: 'pending' | 'ready' | 'unsupported';
  asset_key: string | null;
}

export async function readCredentialingFacts(db: Executor, certificateId: string): Promise<CredentialingFacts | undefined> {
  const result = await sql<CredentialingFacts>`
    SELECT c.certificate_id::text AS certificate_id, c.organization_id::text AS organization_id, c.order_id, c.jws, c.asset_name,
           c.asset_sha256, c.verify_url, c.issued_at, c.content_credentials, o.asset_key
    FROM certificates c JOIN orders o ON o.order_id = c.order_id
    WHERE c.certificate_id = ${certificateId}::uuid`.execute(db);
  return result.rows[0];
}

/** Records the finished file (its object is complete by now). @returns false when it was no longer pending. */
export async function markContentCredentialsReady(db: Executor, certificateId: string, objectKey: string, signerId: string): Promise<boolean> {
  const result = await db
    .updateTable('certificates')
    .set({ content_credentials: 'ready', content_credentials_key: objectKey, content_credentials_signer: signerId, content_credentials_note: null })
    .where('certificate_id', '=', certificateId)
    .where('content_credentials', '=', 'pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function markContentCredentialsUnsupported(db: Executor, certificateId: string, note: string): Promise<void> {
  await db
    .updateTable('certificates')
    .set({ content_credentials: 'unsupported', content_credentials_note: note.slice(0, 2000) })
    .where('certificate_id', '=', certificateId)
    .where('content_credentials', '=', 'pending')
    .execute();
}
