/**
 * The job that makes a certificate's credentialed file (docs/content-credentials.md): its kind and how it
 * is queued. Queued in the transaction that issues the certificate, so a certificate never lacks its job;
 * the handler lives in domain/content-credentials/.
 */
import type { Executor } from '../../storage/database.js';
import { insertJob } from '../background/jobs.repository.js';
import { MAKE_CONTENT_CREDENTIALS_JOB, contentCredentialsJobKey, maxAttemptsOf } from '../background/job-kinds.js';

export async function queueContentCredentials(trx: Executor, certificateId: string): Promise<void> {
  await insertJob(trx, {
    kind: MAKE_CONTENT_CREDENTIALS_JOB,
    payload: { certificate_id: certificateId },
    maxAttempts: maxAttemptsOf(MAKE_CONTENT_CREDENTIALS_JOB),
    singletonKey: contentCredentialsJobKey(certificateId),
  });
}
