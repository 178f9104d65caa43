/** Human review: reviewers, the queue, claims, edits and decisions (docs/review.md). */
export * from './review.service.js';
export * from './review-errors.js';
export { loadQueue, QUEUE_PAGE_SIZE, type QueueCounts, type ReviewQueue } from './review-queue.service.js';
export { loadReviewMaterial, type ReviewMaterial, type EvidenceEntry, type ReviewFile } from './review-view.service.js';
export { reviewCertificateIssuer, type CertificateIssuer, type CertificateRequest } from './certificate-seam.js';
export { isReviewer } from './reviewer.repository.js';
export { latestEvidenceRequestNote } from './review-material.repository.js';
